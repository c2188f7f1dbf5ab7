package experiments

import (
	"context"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/results"
)

// efficiencySpec prices 1F1B at P = 4, M = 8 under the GPU model, with the
// cost line's extra keys.
func efficiencySpec(extra string) string {
	return "experiment: eff\nmeasure: schedules\nkinds: [1f1b]\nranks: [4]\nmicrobatches: [8]\ncost: {cost_model: gpu" + extra + "}\n"
}

// The spec key cost.efficiency is the command line's --efficiency: at
// cost.DefaultEfficiency (0.5) it gives the makespan of no key at all; at
// half of it every compute time doubles while transfers keep their time,
// so the makespan grows by more than 1× and at most 2×. Only a spec that
// gives the key gets new ids.
func TestSpecEfficiency(t *testing.T) {
	makespan := func(extra string) (float64, string) {
		t.Helper()
		runs := mustSpec(t, efficiencySpec(extra)).Expand()
		if len(runs) != 1 {
			t.Fatalf("%d runs", len(runs))
		}
		out, err := Execute(context.Background(), runs[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Schedules {
			if m.Level == results.LevelSimulated {
				return m.Makespan, runs[0].Name + " " + m.ScheduleID
			}
		}
		t.Fatal("no simulated row")
		return 0, ""
	}
	def, defID := makespan("")
	same, sameID := makespan(", efficiency: 0.5")
	slow, _ := makespan(", efficiency: 0.25")
	if same != def || !(slow > def && slow <= 2*def) {
		t.Errorf("makespan %g without the key, %g at 0.5, %g at 0.25; want equal, then in (1×, 2×]", def, same, slow)
	}
	if defID == sameID || strings.Contains(defID, "/eff") || strings.Contains(defID, "-eff") || !strings.Contains(sameID, "/eff0.5") || !strings.Contains(sameID, "-eff0.5") {
		t.Errorf("ids %q without the key and %q with it: want the key in the second only", defID, sameID)
	}
	for _, tc := range []struct{ cost, want string }{
		{", efficiency: 1.5", "s.yaml:6: cost.efficiency: 1.5 is outside (0, 1]"},
		{", efficiency: -0.1", "s.yaml:6: cost.efficiency: -0.1 is outside (0, 1]"},
	} {
		if _, err := ParseSpec("s.yaml", []byte(efficiencySpec(tc.cost))); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.cost, err, tc.want)
		}
	}
	unit := strings.Replace(efficiencySpec(", efficiency: 0.4"), "cost_model: gpu", "cost_model: unit", 1)
	if _, err := ParseSpec("s.yaml", []byte(unit)); err == nil || !strings.Contains(err.Error(), "s.yaml:6: cost.efficiency: needs cost_model: gpu") {
		t.Errorf("efficiency under the unit model: %v", err)
	}
}
