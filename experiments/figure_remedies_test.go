package experiments

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/results"
)

// The quick remedies figure's logistic sweeps give the same tables with
// one job and with two (the wall_seconds column aside, the one measured
// column): runs are seeded by their parameters, not their order.
func TestRemediesQuickSameTablesWhateverTheJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quick logistic sweeps twice")
	}
	specs, err := figureRemedies.Presets(true)
	if err != nil {
		t.Fatal(err)
	}
	var runs []Run
	for _, s := range specs {
		if !strings.Contains(s.Name, "logistic") {
			continue
		}
		s.ExtendGrid = nil // the spec's grids as written: the test compares two sweeps, not the grids' growth
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, r := range s.Expand() {
			r.Index = len(runs)
			runs = append(runs, r)
		}
	}
	tables := make([]string, 2)
	for i, jobs := range []int{1, 2} {
		dir := filepath.Join(t.TempDir(), fmt.Sprint(jobs))
		if _, err := (&testRunner{Dir: dir, Jobs: jobs}).Sweep(context.Background(), runs); err != nil {
			t.Fatal(err)
		}
		tb, err := results.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for j := range tb.Runs {
			tb.Runs[j].WallSeconds = 0
		}
		tables[i] = fmt.Sprintf("%v\n%v", tb.Runs, tb.Curves)
	}
	if tables[0] != tables[1] {
		t.Error("the quick logistic remedies differ between --jobs 1 and --jobs 2")
	}
	if !strings.Contains(tables[0], "zb-h1") {
		t.Error("no ZB-H1 rows")
	}
}
