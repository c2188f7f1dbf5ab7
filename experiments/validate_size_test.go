package experiments

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/internal/budget"
	"github.com/pipelab/pipelab/pipeline"
)

// TestSpecSizesAreCheckedArithmetically: specs whose runs need tables or
// data beyond the limit are refused at the key that sets the size, with the
// estimate; the 200-million-microbatch sync spec of the issue among them,
// which ran out of memory when the validator built its schedule.
func TestSpecSizesAreCheckedArithmetically(t *testing.T) {
	sync := strings.Replace(base, "  - name: rpd\n    deltas: [8, paper]\n", "  - name: sync\n    microbatches: 200000000\n", 1)
	for _, tc := range []struct {
		name, spec, want string
	}{
		{"sync iteration", sync, "spec:13: methods[1].microbatches: a 2 × 200000000 1f1b table needs about"},
		{"pipedream microbatches", strings.Replace(base, "total_microbatches: [20]", "total_microbatches: [20, 200000000]", 1),
			"spec:8: total_microbatches[1]: a 2 × 200000000 pipedream table needs about"},
		{"data set", strings.Replace(base, "d: 8", "d: 10000000000", 1), "spec:5: d: a 40 × 10000000000 data set needs about"},
		{"schedules", "experiment: s\nmeasure: schedules\nranks: [4]\nkinds: [1f1b, zb-v]\nmicrobatches: [8, 1000000000]\n",
			"spec:5: microbatches[1]: a 4 × 1000000000 1f1b table needs about"},
		// 1 objective × 2 stage counts × (3 PipeDream steps + 2 RPD δ × 1
		// step) × 1 microbatch count × 10⁹ seeds.
		{"runs", strings.Replace(base, "seed: 1", "seed: 1\nseeds: 1000000000", 1), "spec:3: seeds: a sweep of 10000000000 runs needs about"},
		{"delays", "experiment: d\nmeasure: delays\nstages: [100000]\n", "spec:3: stages[0]: a 100000 × 1000000 pipedream table needs about"},
		// N·S² = 10⁴ · 10⁶ raw delays at S = 1000 (N = 10S).
		{"delay rows", "experiment: d\nmeasure: delays\nstages: [1000]\ndelay_rows: true\n", "spec:4: delay_rows: a delay_rows table of 10000000000 rows needs about"},
	} {
		_, err := ParseSpec("spec", []byte(tc.spec))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "set by --max-memory or "+budget.EnvVar) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := ParseSpec("spec", []byte(base)); err != nil {
		t.Errorf("the base spec: %v", err)
	}
}

// TestSyncFamiliesTakeEveryShape is what lets the validator check sync's
// shapes without building them: every sync family generates every shape
// of one rank or more and one microbatch or more (here up to 12 × 40).
func TestSyncFamiliesTakeEveryShape(t *testing.T) {
	for _, f := range SyncFamilies() {
		for p := 1; p <= 12; p++ {
			for m := 1; m <= 40; m++ {
				if _, err := pipeline.Generate(f, pipeline.Shape{Ranks: p, Microbatches: m}); err != nil {
					t.Errorf("%s P=%d M=%d: %v", f, p, m, err)
				}
			}
		}
	}
}

// TestRunBoundCountsExpand: the validator's run count is Expand's for the
// shipped examples and the test specs (none has RPD δ values that
// coincide, the one case where the bound exceeds the count).
func TestRunBoundCountsExpand(t *testing.T) {
	paths, _ := filepath.Glob("../examples/*.yaml")
	paths = append(paths, "testdata/tiny.yaml")
	for _, p := range paths {
		s, err := ReadSpecFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := s.runBound(), float64(len(s.Expand())); got != want {
			t.Errorf("%s: runBound %g, Expand makes %g runs", p, got, want)
		}
	}
}

// TestGuardShapeFailsClosed: a family the guard cannot bound is refused,
// not let through (issue 39: zb-auto, which pipeline.CellBound does not
// generate, passed every limit and ran past 3 GB under --max-memory 1M),
// and zb-auto is bounded and refused at that size.
func TestGuardShapeFailsClosed(t *testing.T) {
	budget.SetLimit(1 << 20)
	defer budget.SetLimit(0)
	for _, tc := range []struct {
		family string
		want   string
	}{
		{"zb-auto", "a 100 × 100000 zb-auto table needs about"},
		{"no-such-family", "no-such-family"},
	} {
		err := GuardShape(tc.family, pipeline.Shape{Ranks: 100, Microbatches: 100000}, ScheduleCellBytes)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a refusal containing %q", tc.family, err, tc.want)
		}
	}
	budget.SetLimit(1 << 40)
	if err := GuardShape("zb-auto", pipeline.Shape{Ranks: 4, Microbatches: 8}, ScheduleCellBytes); err != nil {
		t.Errorf("a 4 × 8 zb-auto table under 1 TiB: %v", err)
	}
}
