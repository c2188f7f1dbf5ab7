package experiments

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"pipelab/results"
)

// Merge joins the sweep directories dirs (shards of one sweep, or sweeps
// that overlap) into one data set in out: every run recorded in any
// dirs[i]/runs is recorded once in out/runs, and the tables of out are
// gathered from them, step sizes selected over the union. A run id found
// twice with different content (ignoring the wall-clock column) is an
// error naming the run id and both directories. It returns the number of
// distinct runs.
func Merge(dirs []string, out string) (int, error) {
	if len(dirs) == 0 {
		return 0, fmt.Errorf("experiments: merge: no input directories")
	}
	type origin struct {
		dir string
		rec record
		key []byte
	}
	byID := map[string]origin{}
	for _, dir := range dirs {
		recs, err := readRecords(filepath.Join(dir, "runs"))
		if err != nil {
			return 0, err
		}
		for id, rec := range recs {
			key, err := contentKey(rec)
			if err != nil {
				return 0, fmt.Errorf("experiments: merge: %s: run %s: %w", dir, id, err)
			}
			if prev, dup := byID[id]; dup {
				if !bytes.Equal(prev.key, key) {
					return 0, fmt.Errorf("experiments: merge: run id %s (%s) differs between %s and %s", id, rec.Name, prev.dir, dir)
				}
				continue
			}
			byID[id] = origin{dir: dir, rec: rec, key: key}
		}
	}
	if len(byID) == 0 {
		return 0, fmt.Errorf("experiments: merge: no recorded runs in %s", strings.Join(dirs, ", "))
	}
	st, err := openStore(out)
	if err != nil {
		return 0, err
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var ds results.Tables
	for _, id := range ids {
		o := byID[id]
		// The record keeps the stamp of the build that computed it.
		if err := st.putRecord(id, o.rec); err != nil {
			return 0, err
		}
		appendTables(&ds, &o.rec.Output)
	}
	return len(ids), writeDataset(out, &ds)
}

// readRecords reads every record in a runs/ directory, keyed by run id.
func readRecords(dir string) (map[string]record, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	recs := map[string]record{}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".gob")
		if !ok || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		rec, err := readRecord(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		recs[id] = rec
	}
	return recs, nil
}

// contentKey encodes a record without its wall-clock times, so two runs of
// the same configuration compare equal (NaN losses included, which == and
// reflect.DeepEqual would not).
func contentKey(rec record) ([]byte, error) {
	out := rec.Output
	out.Runs = slices.Clone(out.Runs)
	for i := range out.Runs {
		out.Runs[i].WallSeconds = 0
	}
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(record{Name: rec.Name, Output: out})
	return b.Bytes(), err
}
