package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
// (RunsFile, CurvesFile, ...), creating dir if needed.
func WriteDir(dir string, t *Tables) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("results: %w", err)
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
		if err := w.write(filepath.Join(dir, w.name)); err != nil {
			return err
		}
	}
	return nil
}

// ReadDir reads every table present in dir. A missing file is not an
// error; a directory with none of the files is.
func ReadDir(dir string) (*Tables, error) {
	t := &Tables{}
	found := false
	var err error
	read := func(name string, load func(string) error) {
		if err != nil {
			return
		}
		p := filepath.Join(dir, name)
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
		return nil, fmt.Errorf("results: %s: no result tables (%s, %s, ...)", dir, RunsFile, CurvesFile)
	}
	return t, nil
}
