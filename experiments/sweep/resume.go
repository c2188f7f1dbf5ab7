package sweep

import (
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/internal/atomicfile"
	"github.com/pipelab/pipelab/results"
)

// store keeps one record per finished run in DIR/runs/ID.gob, each
// written to a temporary file, fsynced and renamed, so a run is either
// recorded whole or not at all, whenever the process dies. Each record is
// stamped with the build that computed it; a resumed sweep trusts only
// the records of its own build.
type store struct {
	dir   string
	build string // the stamp of this build (buildStamp)
}

// recordFormat numbers the layout of a record. Format 1, the records
// written before records were stamped, had neither Format nor Build; such
// a record decodes with Format 0 and is not trusted. Change the number
// when record or results.Tables change in a way gob would not refuse.
const recordFormat = 2

// record is what a run's file holds: the record format and the stamp of
// the build that wrote it, the run's canonical name (checked on reading)
// and its output.
type record struct {
	Format int
	Build  string
	Name   string
	Output results.Tables
}

// buildStamp returns the stamp of the running build. Tests replace it to
// play another build.
var buildStamp = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return stampOf(info, executableHash)
})

// stampOf describes a build: the Go version, the main module's path and
// version and the build settings that Go records (the VCS revision and
// whether the tree was modified among them, vcs.time left out as the
// revision fixes it). When neither a clean VCS revision nor a released
// module version vouches for the code (a modified tree, a build without
// VCS information such as go test's or go run's), the SHA-256 of the
// executable is added, so that two builds of different code never share
// a stamp.
func stampOf(info *debug.BuildInfo, exeHash func() (string, error)) string {
	var parts []string
	vouched := false
	if info != nil {
		parts = append(parts, info.GoVersion, info.Main.Path+"@"+info.Main.Version)
		revision, modified := "", ""
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.time":
				continue
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value
			}
			parts = append(parts, s.Key+"="+s.Value)
		}
		v := info.Main.Version
		released := v != "" && v != "(devel)" && !strings.HasSuffix(v, "+dirty")
		vouched = modified != "true" && (revision != "" || released)
	}
	if !vouched {
		h, err := exeHash()
		if err != nil {
			h = "unknown (" + err.Error() + ")"
		}
		parts = append(parts, "executable-sha256="+h)
	}
	return strings.Join(parts, " ")
}

// executableHash returns the hex SHA-256 of the running executable.
func executableHash() (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", err
	}
	return hashFile(path)
}

// openStore opens dir's run records, removing the temporary files a killed
// sweep left in runs/. The caller holds dir's lock.
func openStore(dir string) (*store, error) {
	runs := filepath.Join(dir, "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	// Temporary files are what a killed sweep left behind mid-write.
	entries, err := os.ReadDir(runs)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	for _, e := range entries {
		if atomicfile.IsTemp(e.Name()) {
			os.Remove(filepath.Join(runs, e.Name()))
		}
	}
	return &store{dir: runs, build: buildStamp()}, nil
}

func (s *store) path(r experiments.Run) string { return filepath.Join(s.dir, r.ID+".gob") }

// What a run's record is worth to a resumed sweep.
type recordState int

const (
	recordMissing    recordState = iota // no record: the run has not finished
	recordTrusted                       // written by this build for this run: skip the run
	recordForeign                       // written by another build (or another record format): run again
	recordUnreadable                    // does not decode, or names another run: run again
)

// state reads the run's record, if there is one, and says whether a
// resumed sweep may trust it. Only a record that cannot be opened for a
// reason other than its absence is an error.
func (s *store) state(r experiments.Run) (recordState, error) {
	f, err := os.Open(s.path(r))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return recordMissing, nil
	case err != nil:
		return recordMissing, fmt.Errorf("experiments: %w", err)
	}
	defer f.Close()
	var rec record
	if err := gob.NewDecoder(f).Decode(&rec); err != nil || rec.Name != r.Name {
		return recordUnreadable, nil
	}
	if rec.Format != recordFormat || rec.Build != s.build {
		return recordForeign, nil
	}
	return recordTrusted, nil
}

// put records the run's output, computed by this build, durably.
func (s *store) put(r experiments.Run, out *results.Tables) error {
	return s.putRecord(r.ID, record{Format: recordFormat, Build: s.build, Name: r.Name, Output: *out})
}

// putRecord writes rec as the record of run id, durably.
func (s *store) putRecord(id string, rec record) error {
	if err := s.write(id, rec); err != nil {
		return fmt.Errorf("experiments: recording run %s: %w", id, err)
	}
	// The rename is durable once the directory is synced; a platform that
	// cannot sync a directory keeps the record all the same.
	if d, err := os.Open(s.dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// write encodes the record into a temporary file, syncs it and renames it
// into place; on failure it removes the temporary file.
func (s *store) write(id string, rec record) (err error) {
	f, err := atomicfile.CreateTemp(s.dir, atomicfile.TempPattern(id))
	if err != nil {
		return err
	}
	defer atomicfile.Untrack(f.Name())
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := gob.NewEncoder(f).Encode(rec); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(s.dir, id+".gob"))
}

// readRecord decodes one run's file.
func readRecord(path string) (record, error) {
	f, err := os.Open(path)
	if err != nil {
		return record{}, fmt.Errorf("experiments: %w", err)
	}
	defer f.Close()
	var rec record
	if err := gob.NewDecoder(f).Decode(&rec); err != nil {
		return record{}, fmt.Errorf("experiments: %s: %w", path, err)
	}
	return rec, nil
}

func (s *store) get(r experiments.Run) (*results.Tables, error) {
	rec, err := readRecord(s.path(r))
	if err != nil {
		return nil, err
	}
	if rec.Name != r.Name {
		return nil, fmt.Errorf("experiments: %s records run %q, not %q", s.path(r), rec.Name, r.Name)
	}
	return &rec.Output, nil
}

// gather reads the records of runs into one data set.
func (s *store) gather(runs []experiments.Run) (*results.Tables, error) {
	var ds results.Tables
	for _, r := range runs {
		out, err := s.get(r)
		if err != nil {
			return nil, err
		}
		experiments.AppendTables(&ds, out)
	}
	return &ds, nil
}
