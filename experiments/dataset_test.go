package experiments

import (
	"testing"

	"github.com/pipelab/pipelab/results"
)

// TestRankKindsPerComparison: two GPU comparisons over different links
// share the cost model column but are ranked apart; within one, the
// smaller makespan ranks first.
func TestRankKindsPerComparison(t *testing.T) {
	nv := CostSpec{CostModel: "gpu", Preset: "gpt-1.3b", GPU: "a100", Link: "nvlink"}
	pc := nv
	pc.Link = "pcie"
	row := func(c CostSpec, family string, makespan float64) results.ScheduleMetric {
		return results.ScheduleMetric{ScheduleID: scheduleID(c, 4, 8, family, results.LevelSimulated), Family: family,
			Ranks: 4, Microbatches: 8, CostModel: results.CostGPU, Level: results.LevelSimulated, Makespan: makespan}
	}
	ms := []results.ScheduleMetric{row(nv, "gpipe", 2), row(nv, "1f1b", 1), row(pc, "gpipe", 4), row(pc, "1f1b", 3)}
	rankFamilies(ms)
	for i, want := range []int32{2, 1, 2, 1} {
		if ms[i].KindRank != want {
			t.Errorf("%s: rank %d, want %d", ms[i].ScheduleID, ms[i].KindRank, want)
		}
	}
}
