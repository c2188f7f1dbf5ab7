package sweep

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/results"
)

// MergeOptions relax Merge's checks.
type MergeOptions struct {
	// Force writes into an output folder that holds another data set,
	// replacing its records and tables.
	Force bool
	// AllowPartial turns missing shards, unfinished shards, inputs without
	// a DatasetFile and runs recorded in two inputs into warnings.
	AllowPartial bool
}

// MergeSummary is what Merge did.
type MergeSummary struct {
	// Runs is the number of distinct runs merged, of Dataset.Runs.
	Runs    int
	Dataset Dataset
	// Warnings are the problems AllowPartial let through, one line each.
	Warnings []string
}

// Merge joins the sweep directories dirs (the shards of one sweep) into one
// data set in out: every run recorded in any dirs[i]/runs is recorded once
// in out/runs, and the tables of out are gathered from them, step sizes
// selected over the union. It checks the inputs against their DatasetFile:
// inputs of different specs, a run id found twice with different content
// (the wall-clock column aside) and an output folder holding another data
// set (unless Force) are errors; missing or unfinished shards, a shard or
// run given twice and an input without DatasetFile are errors too, or
// warnings with AllowPartial. out is locked while Merge writes it.
func Merge(dirs []string, out string, opt MergeOptions) (MergeSummary, error) {
	var sum MergeSummary
	if len(dirs) == 0 {
		return sum, fmt.Errorf("no input directories")
	}
	problem := func(msg string) error {
		if opt.AllowPartial {
			sum.Warnings = append(sum.Warnings, msg)
			return nil
		}
		return badInputf("%s (--allow-partial merges all the same)", msg)
	}
	inputs, err := readInputs(dirs, problem)
	if err != nil {
		return sum, err
	}
	if err := notAnInput(out, dirs); err != nil {
		return sum, err
	}
	ds, err := checkShards(inputs, problem)
	if err != nil {
		return sum, err
	}
	byID, err := unionRecords(inputs, problem)
	if err != nil {
		return sum, err
	}
	err = checkCoverage(inputs, ds, len(byID), problem)
	if err != nil {
		return sum, err
	}
	sum.Dataset, sum.Runs = ds, len(byID)
	lock, err := lockFolder(out)
	if err != nil {
		return sum, err
	}
	defer lock.unlock()
	if err := prepareOutput(out, ds, opt.Force); err != nil {
		return sum, err
	}
	st, err := openStore(out)
	if err != nil {
		return sum, err
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var tables results.Tables
	for _, id := range ids {
		o := byID[id]
		// The record keeps the stamp of the build that computed it.
		if err := st.putRecord(id, o.rec); err != nil {
			return sum, err
		}
		experiments.AppendTables(&tables, &o.rec.Output)
	}
	return sum, experiments.WriteDataset(out, &tables)
}

// notAnInput refuses an output folder that is one of the inputs, which
// --force would clear.
func notAnInput(out string, dirs []string) error {
	o, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("%w", err)
	}
	for _, d := range dirs {
		if a, err := filepath.Abs(d); err == nil && a == o {
			return badInputf("the output folder %s is also an input; give another --out", out)
		}
	}
	return nil
}

// mergeInput is one input folder: its data set (ok false without a
// DatasetFile) and its records.
type mergeInput struct {
	dir  string
	ds   Dataset
	ok   bool
	recs map[string]record
}

// readInputs reads every input, refusing a folder given twice and inputs of
// different specs.
func readInputs(dirs []string, problem func(string) error) ([]mergeInput, error) {
	var inputs []mergeInput
	seen := map[string]string{}
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("%w", err)
		}
		if prev, dup := seen[abs]; dup {
			return nil, badInputf("%s is given twice (%s and %s)", abs, prev, dir)
		}
		seen[abs] = dir
		in := mergeInput{dir: dir}
		if in.ds, in.ok, err = readDataset(dir); err != nil {
			return nil, err
		}
		if !in.ok {
			if err := problem(fmt.Sprintf("%s has no %s, so its spec and shard cannot be checked", dir, DatasetFile)); err != nil {
				return nil, err
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "runs")); errors.Is(err, fs.ErrNotExist) {
			return nil, badInputf("%s has no runs/ folder: it is not a sweep's output", dir)
		}
		if in.recs, err = readRecords(filepath.Join(dir, "runs")); err != nil {
			return nil, err
		}
		inputs = append(inputs, in)
	}
	var first *mergeInput
	for i := range inputs {
		in := &inputs[i]
		if !in.ok {
			continue
		}
		if first == nil {
			first = in
		} else if c := changedInput(first.ds, in.ds); in.ds.Spec == first.ds.Spec && c != "" {
			return nil, badInputf("the inputs were made from different input files: %s was made %s in %s", first.dir, c, in.dir)
		} else if !in.ds.sameSweep(first.ds) {
			return nil, badInputf("the inputs come from different specs: %s holds %s, %s holds %s",
				first.dir, first.ds, in.dir, in.ds)
		}
	}
	return inputs, nil
}

// mergeOrigin is where Merge took a run's record from.
type mergeOrigin struct {
	dir string
	rec record
	key []byte
}

// unionRecords gathers the records of every input by run id. A run with
// two different contents is an error; one recorded in two inputs is a
// duplicate (a problem).
func unionRecords(inputs []mergeInput, problem func(string) error) (map[string]mergeOrigin, error) {
	byID := map[string]mergeOrigin{}
	for _, in := range inputs {
		ids := make([]string, 0, len(in.recs))
		for id := range in.recs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		dups := 0
		var dupFrom string
		for _, id := range ids {
			rec := in.recs[id]
			key, err := contentKey(rec)
			if err != nil {
				return nil, fmt.Errorf("%s: run %s: %w", in.dir, id, err)
			}
			if prev, dup := byID[id]; dup {
				if !bytes.Equal(prev.key, key) {
					return nil, badInputf("run id %s (%s) differs between %s and %s", id, rec.Name, prev.dir, in.dir)
				}
				dups++
				dupFrom = prev.dir
				continue
			}
			byID[id] = mergeOrigin{dir: in.dir, rec: rec, key: key}
		}
		if dups > 0 {
			if err := problem(fmt.Sprintf("%s duplicates %d runs already recorded (in %s, among others)", in.dir, dups, dupFrom)); err != nil {
				return nil, err
			}
		}
	}
	if len(byID) == 0 {
		dirs := make([]string, len(inputs))
		for i, in := range inputs {
			dirs[i] = in.dir
		}
		return nil, badInputf("no recorded runs in %s", strings.Join(dirs, ", "))
	}
	return byID, nil
}

// checkShards checks the shards against each other: a shard given twice
// and an unfinished one are problems. It returns the data set of the merged
// folder (the whole sweep).
func checkShards(inputs []mergeInput, problem func(string) error) (Dataset, error) {
	var whole Dataset
	seen := map[Shard]string{}
	for _, in := range inputs {
		if !in.ok {
			continue
		}
		whole = in.ds
		sh := in.ds.Shard()
		if prev, dup := seen[sh]; dup {
			if err := problem(fmt.Sprintf("shard %s is given twice: %s and %s", sh, prev, in.dir)); err != nil {
				return whole, err
			}
		}
		seen[sh] = in.dir
		if have, want := len(in.recs), in.ds.ShardRuns(); have < want {
			if err := problem(fmt.Sprintf("%s holds %d of the %d runs of shard %s: the shard has not finished", in.dir, have, want, sh)); err != nil {
				return whole, err
			}
		}
	}
	whole.ShardIndex, whole.ShardCount = 0, 0
	return whole, nil
}

// checkCoverage reports, as a problem, a merge that holds fewer than the
// whole sweep's runs, naming the missing shards.
func checkCoverage(inputs []mergeInput, whole Dataset, distinct int, problem func(string) error) error {
	if whole.SpecID == "" || distinct >= whole.Runs {
		return nil
	}
	byCount := map[int]map[int]bool{}
	for _, in := range inputs {
		if in.ok {
			sh := in.ds.Shard()
			if byCount[sh.Count] == nil {
				byCount[sh.Count] = map[int]bool{}
			}
			byCount[sh.Count][sh.Index] = true
		}
	}
	counts := make([]int, 0, len(byCount))
	for c := range byCount {
		counts = append(counts, c)
	}
	slices.Sort(counts)
	var missing []string
	for _, c := range counts {
		for i := range c {
			if !byCount[c][i] {
				missing = append(missing, Shard{Index: i, Count: c}.String())
			}
		}
	}
	msg := fmt.Sprintf("the inputs hold %d of the %d runs of spec %q", distinct, whole.Runs, whole.Spec)
	if len(missing) > 0 {
		msg += "; missing shards: " + strings.Join(missing, ", ")
	}
	return problem(msg)
}

// prepareOutput makes out the folder of the merged data set ds: an empty or
// new folder, or one that already holds ds (a merge run again), is used as
// it is; one that holds another data set, or records and tables without a
// DatasetFile, is refused unless force, which clears it.
func prepareOutput(out string, ds Dataset, force bool) error {
	have, ok, err := readDataset(out)
	if err != nil && !force {
		return err
	}
	occupied, err := holdsResults(out)
	if err != nil {
		return err
	}
	switch {
	case ok && have.same(ds):
		return nil
	case (ok || occupied) && !force:
		what := "records or tables of an unknown data set"
		if ok {
			what = "another data set (" + have.String() + ")"
		}
		return badInputf("%s holds %s; give another --out, or --force to replace it", out, what)
	case ok || occupied:
		if err := clearResults(out); err != nil {
			return err
		}
	}
	if ds.SpecID == "" {
		return nil
	}
	return writeDatasetFile(out, ds)
}

// resultFiles are the files of an output folder that hold a data set.
var resultFiles = []string{DatasetFile, results.RunsFile, results.CurvesFile, results.DelaysFile,
	results.DelayRowsFile, results.TimelineFile, results.SchedulesFile}

// holdsResults reports whether dir holds run records or result tables.
func holdsResults(dir string) (bool, error) {
	for _, name := range resultFiles[1:] {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true, nil
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "runs"))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%w", err)
	}
	return len(entries) > 0, nil
}

// clearResults removes the data set of dir: its records and tables.
func clearResults(dir string) error {
	for _, name := range resultFiles {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w", err)
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, "runs")); err != nil {
		return fmt.Errorf("%w", err)
	}
	return nil
}

// readRecords reads every record in a runs/ directory, keyed by run id.
func readRecords(dir string) (map[string]record, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w", err)
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
