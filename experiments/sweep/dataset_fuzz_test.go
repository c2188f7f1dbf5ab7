package sweep

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/experiments"
)

// FuzzReadDataset checks the reader of an output folder's dataset.json on
// any content: it never panics, a rejection names the file, and an
// accepted data set is one merge and a sweep can use: a usable spec name,
// a spec_id of 16 hex digits, at least one run, and a shard that is the
// whole sweep or 0 <= I < N.
func FuzzReadDataset(f *testing.F) {
	tiny, err := experiments.ReadSpecFile(tinySpec)
	if err != nil {
		f.Fatal(err)
	}
	for _, sh := range []Shard{{}, {Index: 1, Count: 3}} {
		b, err := json.Marshal(NewDataset(tiny.Name, tiny.Expand(), sh))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{"", "{}", "null", `{"spec":"x","spec_id":"0123456789abcdef","runs":3,"shard_index":5,"shard_count":2}`,
		`{"spec":"../x","spec_id":"z","runs":-1}`, `{"inputs":[{"key":"hardware","path":"h","sha256":"00"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, DatasetFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		d, ok, err := readDataset(dir)
		if err != nil {
			if !strings.Contains(err.Error(), DatasetFile) {
				t.Fatalf("rejection %q does not name %s", err, DatasetFile)
			}
			return
		}
		if !ok {
			t.Fatal("a folder with dataset.json read as one without")
		}
		if err := d.check(); err != nil {
			t.Fatalf("accepted %+v: %v", d, err)
		}
	})
}
