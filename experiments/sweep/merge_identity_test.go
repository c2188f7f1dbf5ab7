package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/experiments"
)

// TestMergeRefusesShardsOfSpecsDifferingInOneKey: shards of two specs that
// differ only in a key that changes no run id (the experiment's name, the
// selection rule) are shards of two data sets, and merge refuses them
// (issue 27: they were joined, with mixed labels).
func TestMergeRefusesShardsOfSpecsDifferingInOneKey(t *testing.T) {
	base := readTestSpec(t, "")
	tmp := t.TempDir()
	for _, edit := range []string{"experiment: tiny-renamed\n", "selection_rule: stable\n"} {
		other := readTestSpec(t, edit)
		a := filepath.Join(tmp, "a-"+edit[:4])
		b := filepath.Join(tmp, "b-"+edit[:4])
		all, otherAll := base.Expand(), other.Expand()
		sweepShard(t, a, base.Name, all, Shard{Index: 0, Count: 2})
		sweepShard(t, b, other.Name, otherAll, Shard{Index: 1, Count: 2})
		_, err := Merge([]string{a, b}, filepath.Join(tmp, "out-"+edit[:4]), MergeOptions{AllowPartial: true})
		if err == nil || !strings.Contains(err.Error(), "different specs") {
			t.Errorf("%q: merge of the two specs' shards = %v, want a refusal saying they come from different specs", strings.TrimSpace(edit), err)
		}
	}
}

// TestDatasetIdentityCoversEveryKey: changing any one spec key either
// makes the spec invalid or changes the data set's identity (its name or
// spec_id), so no two specs share shards.
func TestDatasetIdentityCoversEveryKey(t *testing.T) {
	base := readTestSpec(t, "")
	id := NewDataset(base.Name, base.Expand(), Shard{})
	for _, edit := range []string{
		"experiment: other\n", "seed: 6\n", "seeds: 3\n", "objectives: [tridiagonal]\n", "n: 300\n", "d: 16\n",
		"batch_size: 20\n", "stages: [2, 8]\n", "total_microbatches: [40]\n", "updates: 7\n", "log_every: 5\n",
		"log_points: 7\n", "selection_rule: stable\n", "target_loss: 0.5\n", "cut: shortest\n",
		"cost: {cost_model: gpu, model: gpt-small}\n",
	} {
		s, err := experiments.ParseSpec("edit.yaml", editedTiny(t, edit))
		if err != nil {
			continue // an invalid spec has no shards
		}
		if got := NewDataset(s.Name, s.Expand(), Shard{}); got.Spec == id.Spec && got.SpecID == id.SpecID {
			t.Errorf("%q: the data set's identity %s did not change", strings.TrimSpace(edit), got)
		}
	}
}

// editedTiny is testdata/tiny.yaml with the top-level key of edit (one
// "key: value" line) set to edit's value.
func editedTiny(t *testing.T, edit string) []byte {
	t.Helper()
	b, err := os.ReadFile(tinySpec)
	if err != nil {
		t.Fatal(err)
	}
	key, _, _ := strings.Cut(edit, ":")
	var out []string
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if key == "" || !strings.HasPrefix(line, key+":") {
			out = append(out, line)
		}
	}
	return []byte(strings.Join(out, "") + edit)
}

// readTestSpec parses editedTiny(edit).
func readTestSpec(t *testing.T, edit string) *experiments.Spec {
	t.Helper()
	s, err := experiments.ParseSpec("tiny.yaml", editedTiny(t, edit))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
