package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pipelab/pipelab/internal/atomicfile"
)

// Tables is the content of a results directory: every kind of result, as
// read back from its file. A kind whose file is absent is nil.
type Tables struct {
	Runs      []Run
	Curves    []CurvePoint
	Delays    []DelayStat
	DelayRows []DelayRow
	Timeline  []TimelineEvent
	Schedules []ScheduleMetric
}

// WriteDir writes every kind of t that has rows to its file in dir
// (RunsFile, CurvesFile, ...), creating dir if needed. The files are
// replaced together: they are written into a staging folder in dir
// (.tables.tmp-*), a commit mark is written into it last, and only then
// are they renamed into dir. A process killed before the mark leaves the
// old tables; one killed between two renames leaves a committed staging
// folder, which ReadDir reads in place of the tables not yet moved and
// Recover (called by WriteDir) finishes, so the runs and curves tables are
// never read from two different writes.
func WriteDir(dir string, t *Tables) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if err := Recover(dir); err != nil {
		return err
	}
	stage, err := stageTables(dir, t)
	if err != nil {
		return err
	}
	return commitStage(dir, stage)
}

// stageTables writes the non-empty tables of t into a new staging folder
// of dir, tracked (so a signal removes it) until it is committed.
func stageTables(dir string, t *Tables) (string, error) {
	stage, err := os.MkdirTemp(dir, atomicfile.TempPattern("tables"))
	if err != nil {
		return "", fmt.Errorf("results: %w", err)
	}
	if err := atomicfile.Track(stage); err != nil {
		os.RemoveAll(stage)
		return "", fmt.Errorf("results: %w", err)
	}
	writes := []struct {
		name  string
		rows  int
		write func(string) error
	}{
		{RunsFile, len(t.Runs), func(p string) error { return WriteRuns(p, t.Runs) }},
		{CurvesFile, len(t.Curves), func(p string) error { return WriteCurves(p, t.Curves) }},
		{DelaysFile, len(t.Delays), func(p string) error { return WriteDelays(p, t.Delays) }},
		{DelayRowsFile, len(t.DelayRows), func(p string) error { return WriteDelayRows(p, t.DelayRows) }},
		{TimelineFile, len(t.Timeline), func(p string) error { return WriteTimeline(p, t.Timeline) }},
		{SchedulesFile, len(t.Schedules), func(p string) error { return WriteSchedules(p, t.Schedules) }},
	}
	for _, w := range writes {
		if w.rows == 0 {
			continue
		}
		if err := w.write(filepath.Join(stage, w.name)); err != nil {
			atomicfile.Untrack(stage)
			os.RemoveAll(stage)
			return "", err
		}
	}
	return stage, nil
}

// commitMark is the file whose presence in a staging folder says that its
// tables are complete and are to replace dir's.
const commitMark = "commit"

// interruptAt, when set by a test, is called after each table renamed into
// place by commitStage; true stops the commit there, as a kill would.
var interruptAt func(renamed int) bool

// errInterrupted is what commitStage returns when interruptAt stops it.
var errInterrupted = errors.New("results: commit interrupted (test)")

// commitStage marks stage committed, then moves its tables into dir.
func commitStage(dir, stage string) error {
	// Untracked first: a signal after the mark must leave the folder for
	// Recover to finish, and one before it leaves an uncommitted folder
	// that Recover removes.
	atomicfile.Untrack(stage)
	if err := atomicfile.Write(filepath.Join(stage, commitMark), func(*os.File) error { return nil }); err != nil {
		os.RemoveAll(stage)
		return fmt.Errorf("results: %w", err)
	}
	return finishStage(dir, stage)
}

// finishStage renames the tables of a committed staging folder into dir
// and removes the folder.
func finishStage(dir, stage string) error {
	entries, err := os.ReadDir(stage)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	renamed := 0
	for _, e := range entries {
		if e.Name() == commitMark || atomicfile.IsTemp(e.Name()) {
			continue
		}
		if err := os.Rename(filepath.Join(stage, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("results: %w", err)
		}
		renamed++
		if interruptAt != nil && interruptAt(renamed) {
			return errInterrupted
		}
	}
	atomicfile.SyncDir(dir)
	if err := os.RemoveAll(stage); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// Recover brings dir's tables to a consistent state after a process was
// killed while writing them: it finishes a committed WriteDir (moving the
// rest of its tables into place) and removes the temporary files and
// uncommitted staging folders that a killed write left in dir. A missing
// dir is not an error. Call it only while no other process writes dir (an
// output folder's lock).
func Recover(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	for _, e := range entries {
		if !atomicfile.IsTemp(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(p, commitMark)); e.IsDir() && err == nil {
			if err := finishStage(dir, p); err != nil {
				return err
			}
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("results: %w", err)
		}
	}
	return nil
}

// ReadDir reads every table present in dir. A missing file is not an
// error; a directory with none of the files is.
func ReadDir(dir string) (*Tables, error) {
	t := &Tables{}
	found := false
	stage, err := committedStage(dir)
	read := func(name string, load func(string) error) {
		if err != nil {
			return
		}
		p := filepath.Join(dir, name)
		if staged := filepath.Join(stage, name); stage != "" {
			if _, statErr := os.Stat(staged); statErr == nil {
				p = staged
			}
		}
		if _, statErr := os.Stat(p); errors.Is(statErr, fs.ErrNotExist) {
			return
		}
		found = true
		err = load(p)
	}
	read(RunsFile, func(p string) (e error) { t.Runs, e = ReadRuns(p); return })
	read(CurvesFile, func(p string) (e error) { t.Curves, e = ReadCurves(p); return })
	read(DelaysFile, func(p string) (e error) { t.Delays, e = ReadDelays(p); return })
	read(DelayRowsFile, func(p string) (e error) { t.DelayRows, e = ReadDelayRows(p); return })
	read(TimelineFile, func(p string) (e error) { t.Timeline, e = ReadTimeline(p); return })
	read(SchedulesFile, func(p string) (e error) { t.Schedules, e = ReadSchedules(p); return })
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("results: %s: %w (%s, %s, ...)", dir, ErrNoTables, RunsFile, CurvesFile)
	}
	return t, nil
}

// committedStage returns the committed staging folder of dir that a killed
// WriteDir left, or "" when there is none.
func committedStage(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("results: %w", err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if !e.IsDir() || !atomicfile.IsTemp(e.Name()) {
			continue
		}
		if _, err := os.Stat(filepath.Join(p, commitMark)); err == nil {
			return p, nil
		}
	}
	return "", nil
}

// ErrNoTables is ReadDir's error for a folder that holds no result table.
var ErrNoTables = errors.New("no result tables")
