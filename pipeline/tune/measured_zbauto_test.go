package tune

import (
	"testing"

	"github.com/pipelab/pipelab/pipeline/cost"
)

// zb-auto is one of the measured tuner's candidates (it was skipped as an
// unknown family): built from the measured times, it is never slower than
// ZB-H1, which its builder times among its own candidates within ZB-1p's
// activation limit (the same limit ZB-H1 keeps).
func TestTuneMeasuredZBAuto(t *testing.T) {
	m := cost.Measured{Source: "m", Stages: []cost.Stage{{TF: 1e-3, TB: 1e-3, TW: 1e-3}, {TF: 2e-3, TB: 1e-3, TW: 1.5e-3}, {TF: 1e-3, TB: 2e-3, TW: 0.5e-3}},
		Comm: []float64{1e-4, 2e-4}}
	res, err := TuneMeasured(MeasuredProblem{Costs: m, Ranks: 3, Microbatches: []int{6},
		Schedules: []Schedule{{ZBAutoFamily, 1}, {"zb-h1", 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 0 || len(res.Candidates) != 2 {
		t.Fatalf("candidates %d, skipped %q", len(res.Candidates), res.Skipped)
	}
	auto, h1 := res.Candidates[0], res.Candidates[1]
	if auto.Schedule.Family != ZBAutoFamily || auto.Table.Family != ZBAutoFamily {
		t.Fatalf("first candidate %s (table %s), want zb-auto", auto.Schedule, auto.Table.Family)
	}
	if auto.Makespan > h1.Makespan*(1+1e-12) {
		t.Errorf("zb-auto %g s, slower than zb-h1's %g s", auto.Makespan, h1.Makespan)
	}
	// More measured stages than ranks: zb-auto is skipped with one reason.
	res, err = TuneMeasured(MeasuredProblem{Costs: cost.Measured{Source: "m", Stages: append(m.Stages, m.Stages[0]), Comm: append(m.Comm, 0, 0)[:3]},
		Ranks: 2, Microbatches: []int{4}, Schedules: []Schedule{{ZBAutoFamily, 1}, {"interleaved-1f1b", 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 1 || res.Skipped[0] != "zb-auto: the automatic schedule places one stage per rank, and 4 stages were measured on 2 ranks" {
		t.Errorf("skipped %q", res.Skipped)
	}
}
