package sweep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/experiments"
)

// hardwareSpec writes a GPU-timed schedules spec that names a hardware
// file, and the hardware file with the GPU's peak given, and reads it.
func hardwareSpec(t *testing.T, dir, peak string) *experiments.Spec {
	t.Helper()
	hw := "gpu: {name: g, peak_flops: " + peak + ", memory_bytes: 80e9}\nlink: {name: l, latency: 3e-6, bandwidth: 50e9}\n"
	if err := os.WriteFile(filepath.Join(dir, "hw.yaml"), []byte(hw), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := "experiment: hw\nmeasure: schedules\nranks: [2]\nkinds: [1f1b, gpipe]\nmicrobatches: [4]\n" +
		"cost: {cost_model: gpu, model: gpt-1.3b, hardware: hw.yaml}\n"
	path := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := experiments.ReadSpecFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDatasetIdentityCoversInputContents: a data set's identity holds the
// content of each file its runs read, not only the file's path (issue 39:
// two shards priced with different hardware files of one name merged with
// exit 0, and a sweep re-run after the hardware file was edited resumed
// the old runs). Merge refuses the two shards naming the file, and the
// sweep into the folder of the old content is refused naming it, with no
// run resumed.
func TestDatasetIdentityCoversInputContents(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	shard0, shard1, out := filepath.Join(tmp, "s0"), filepath.Join(tmp, "s1"), filepath.Join(tmp, "out")
	a := hardwareSpec(t, dir, "312e12")
	allA := a.Expand()
	dsA := NewDataset(a.Name, allA, Shard{})
	sweepShard(t, shard0, a.Name, allA, Shard{Index: 0, Count: 2})
	sweepShard(t, out, a.Name, allA, Shard{})

	b := hardwareSpec(t, dir, "989e12")
	allB := b.Expand()
	dsB := NewDataset(b.Name, allB, Shard{})
	if dsA.SpecID == dsB.SpecID {
		t.Fatalf("two hardware files of one name give one spec_id %s", dsA.SpecID)
	}
	sweepShard(t, shard1, b.Name, allB, Shard{Index: 1, Count: 2})
	_, err := Merge([]string{shard0, shard1}, filepath.Join(tmp, "all"), MergeOptions{})
	if !errors.Is(err, experiments.ErrBadInput) || !strings.Contains(err.Error(), "hw.yaml") {
		t.Errorf("merge of shards priced with two hardware files: %v, want a bad-input refusal naming hw.yaml", err)
	}

	rn := Runner{Dir: out, Jobs: 1, Execute: fakeRun, Dataset: &dsB}
	sum, err := rn.Sweep(context.Background(), allB)
	if !errors.Is(err, experiments.ErrBadInput) || !strings.Contains(err.Error(), "hw.yaml") {
		t.Errorf("a sweep after the hardware file changed: %v, want a bad-input refusal naming hw.yaml", err)
	}
	if sum.Resumed != 0 {
		t.Errorf("a sweep after the hardware file changed resumed %d runs", sum.Resumed)
	}
}
