package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Figures reproduced side by side in one pool give the tables, and the
// curves byte for byte, that one slot running them one after another
// gives; the figures' lines come in the order they were named, and the
// progress lines name their figure.
func TestReproducePooledSameAsOneSlot(t *testing.T) {
	one, two := t.TempDir(), t.TempDir()
	pipelab(t, "reproduce", "pd-vs-rpd", "delays", "--quick", "--out", one, "--jobs", "1")
	var out, errb bytes.Buffer
	if code := run([]string{"reproduce", "pd-vs-rpd", "delays", "--quick", "--out", two, "--jobs", "2"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, fig := range []string{"pd-vs-rpd", "delays"} {
		if a, b := tables(t, filepath.Join(one, fig)), tables(t, filepath.Join(two, fig)); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: tables differ between --jobs 1 and --jobs 2", fig)
		}
	}
	a, errA := os.ReadFile(filepath.Join(one, "pd-vs-rpd", "curves.parquet"))
	b, errB := os.ReadFile(filepath.Join(two, "pd-vs-rpd", "curves.parquet"))
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Errorf("curves.parquet differs between --jobs 1 and --jobs 2 (%v, %v)", errA, errB)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "pd-vs-rpd ") || !strings.HasPrefix(lines[1], "delays ") || !strings.HasPrefix(lines[2], "total ") {
		t.Errorf("stdout %q: want the pd-vs-rpd line, the delays line, the total", out.String())
	}
	for _, l := range strings.Split(strings.TrimSpace(errb.String()), "\n") {
		if !strings.HasPrefix(l, "pd-vs-rpd: ") && !strings.HasPrefix(l, "delays: ") {
			t.Errorf("progress line %q names no figure", l)
		}
	}
}
