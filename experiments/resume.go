package experiments

import (
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"pipelab/results"
)

// store keeps one record per finished run in DIR/runs/ID.gob, each
// written to a temporary file, fsynced and renamed, so a run is either
// recorded whole or not at all, whenever the process dies.
type store struct {
	dir string
}

// record is what a run's file holds: its canonical name (checked on
// reading) and its output.
type record struct {
	Name   string
	Output results.Tables
}

const tmpMark = ".tmp-"

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
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), tmpMark) {
			os.Remove(filepath.Join(runs, e.Name()))
		}
	}
	return &store{dir: runs}, nil
}

func (s *store) path(r Run) string { return filepath.Join(s.dir, r.ID+".gob") }

func (s *store) has(r Run) (bool, error) {
	_, err := os.Stat(s.path(r))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("experiments: %w", err)
}

// put records the run's output durably.
func (s *store) put(r Run, out *results.Tables) error {
	if err := s.write(r, out); err != nil {
		return fmt.Errorf("experiments: recording run %s: %w", r.ID, err)
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
func (s *store) write(r Run, out *results.Tables) (err error) {
	f, err := os.CreateTemp(s.dir, "."+r.ID+tmpMark+"*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := gob.NewEncoder(f).Encode(record{Name: r.Name, Output: *out}); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), s.path(r))
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

func (s *store) get(r Run) (*results.Tables, error) {
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
func (s *store) gather(runs []Run) (*results.Tables, error) {
	var ds results.Tables
	for _, r := range runs {
		out, err := s.get(r)
		if err != nil {
			return nil, err
		}
		appendTables(&ds, out)
	}
	return &ds, nil
}
