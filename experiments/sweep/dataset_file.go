package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/internal/atomicfile"
)

// DatasetFile is the file of an output folder that says which data set the
// folder holds (Dataset, as JSON).
const DatasetFile = "dataset.json"

// Dataset says what an output folder holds: runs of which sweep, and which
// shard of it. Merge reads it to tell shards of one sweep from those of
// another and to find missing shards.
type Dataset struct {
	// Spec is the spec's name; SpecID identifies its expansion (the
	// SHA-256 of every run id in expansion order, and of the selection
	// rule when it is not best-final, the one spec key besides the name
	// that no run id holds), so two specs that expand to the same runs
	// share it whatever their YAML looks like. Spec and SpecID together
	// are the data set's identity: shards of one sweep share both.
	Spec   string `json:"spec"`
	SpecID string `json:"spec_id"`
	// Runs is the number of runs of the whole sweep.
	Runs int `json:"runs"`
	// Inputs are the files the runs read (experiments.InputFiles) with
	// the SHA-256 of their contents, which SpecID holds too: the same
	// spec over another hardware file of the same name is another data
	// set. Empty for a spec that reads no file.
	Inputs []InputHash `json:"inputs,omitempty"`
	// ShardIndex and ShardCount are the folder's shard (I/N); a count of
	// 0 is the whole sweep (an unsharded sweep, or a merge).
	ShardIndex int `json:"shard_index"`
	ShardCount int `json:"shard_count"`
}

// NewDataset describes the folder of shard of the sweep spec whose
// expansion is all.
func NewDataset(spec string, all []experiments.Run, shard Shard) Dataset {
	h := sha256.New()
	for _, r := range all {
		h.Write([]byte(r.ID))
		h.Write([]byte{'\n'})
	}
	if len(all) > 0 && all[0].Select != "" && all[0].Select != experiments.BestFinal {
		// Only then, so that the data sets of best-final keep their ids.
		h.Write([]byte("selection_rule=" + all[0].Select + "\n"))
	}
	inputs := hashInputs(experiments.InputFiles(all))
	for _, in := range inputs {
		// Only the key and the content: the same file under another
		// path (another machine's checkout) is the same data set.
		h.Write([]byte("input " + in.Key + "=" + in.SHA256 + "\n"))
	}
	return Dataset{Spec: spec, SpecID: hex.EncodeToString(h.Sum(nil))[:16], Runs: len(all),
		Inputs: inputs, ShardIndex: shard.Index, ShardCount: shard.Count}
}

// sameSweep reports whether d and e are folders of one sweep.
func (d Dataset) sameSweep(e Dataset) bool { return d.Spec == e.Spec && d.SpecID == e.SpecID }

// same reports whether d and e are the same folder of one sweep.
func (d Dataset) same(e Dataset) bool {
	return d.sameSweep(e) && d.Runs == e.Runs && d.Shard() == e.Shard() && slices.Equal(d.Inputs, e.Inputs)
}

// Shard returns the folder's shard.
func (d Dataset) Shard() Shard { return Shard{Index: d.ShardIndex, Count: d.ShardCount} }

// ShardRuns is the number of runs the folder's shard holds when complete.
func (d Dataset) ShardRuns() int {
	if d.ShardCount == 0 {
		return d.Runs
	}
	return (d.Runs - d.ShardIndex + d.ShardCount - 1) / d.ShardCount
}

// String names the data set as errors do: `spec "NAME" (ID), shard I/N`.
func (d Dataset) String() string {
	return fmt.Sprintf("spec %q (%s), shard %s", d.Spec, d.SpecID, d.Shard())
}

// readDataset reads dir's DatasetFile; ok is false when it has none.
func readDataset(dir string) (d Dataset, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, DatasetFile))
	if errors.Is(err, fs.ErrNotExist) {
		return d, false, nil
	}
	if err != nil {
		return d, false, fmt.Errorf("experiments: %w", err)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, false, fmt.Errorf("experiments: %s: %w", filepath.Join(dir, DatasetFile), err)
	}
	if err := d.check(); err != nil {
		return Dataset{}, false, badInputf("experiments: %s: %v; pipelab sweep and merge write no such file", filepath.Join(dir, DatasetFile), err)
	}
	return d, true, nil
}

// check refuses a data set no sweep writes: an unusable spec name, a
// spec_id that is not 16 hex digits, no runs, a shard outside the sweep.
func (d Dataset) check() error {
	switch {
	case d.Spec != "" && !experiments.IsSafeName(d.Spec):
		return fmt.Errorf("spec %q is not a usable name", d.Spec)
	case len(d.SpecID) != 16 || strings.Trim(d.SpecID, "0123456789abcdef") != "":
		return fmt.Errorf("spec_id %q is not 16 hex digits", d.SpecID)
	case d.Runs < 1:
		return fmt.Errorf("runs is %d, want at least 1", d.Runs)
	case d.ShardCount == 0 && d.ShardIndex != 0,
		d.ShardCount != 0 && (d.ShardCount < 1 || d.ShardIndex < 0 || d.ShardIndex >= d.ShardCount):
		return fmt.Errorf("shard %d/%d of %d runs is not a shard", d.ShardIndex, d.ShardCount, d.Runs)
	}
	for _, in := range d.Inputs {
		if in.Key == "" || in.Path == "" || (in.SHA256 == "") == (in.Unreadable == "") ||
			in.SHA256 != "" && (len(in.SHA256) != 64 || strings.Trim(in.SHA256, "0123456789abcdef") != "") {
			return fmt.Errorf("input %q is not a file with either a SHA-256 or a reason it was not read", in.Key)
		}
	}
	return nil
}

// writeDatasetFile records d as what dir holds.
func writeDatasetFile(dir string, d Dataset) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("experiments: %w", err)
	}
	err = atomicfile.Write(filepath.Join(dir, DatasetFile), func(f *os.File) error {
		_, err := f.Write(append(b, '\n'))
		return err
	})
	if err != nil {
		return fmt.Errorf("experiments: %w", err)
	}
	return nil
}

// claimFolder makes dir the folder of data set d: a folder that holds no
// data set yet (no DatasetFile) is claimed, one that holds d is resumed,
// and one that holds another data set is refused.
func claimFolder(dir string, d Dataset) error {
	have, ok, err := readDataset(dir)
	switch {
	case err != nil:
		return err
	case ok && have.Spec == d.Spec && changedInput(have, d) != "":
		return badInputf("experiments: %s holds runs made %s; they are not resumed: give another --out, or remove %s to run them again",
			dir, changedInput(have, d), dir)
	case ok && !have.same(d):
		return badInputf("experiments: %s holds another data set (%s, not %s); give another --out", dir, have, d)
	case ok:
		return nil
	}
	return writeDatasetFile(dir, d)
}
