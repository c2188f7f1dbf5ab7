package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/request"
	"github.com/pipelab/pipelab/results"
)

// pipelab compare and the schedules measure rank families by one rule
// (results.Ranks): at unit cost with P = 4, M = 8, GPipe, 1F1B and
// PipeDream tie at 2(M + P - 1) = 22 steps (docs/reference.md §2), ZB-H1
// and ZB-H2 tie below them, and the interleaved families tie at their own
// makespans, so the case is heavy with ties at every level. Under the GPU
// model GPipe's and 1F1B's makespans are sums of the same times in another
// order, a rounding apart: the rule's tolerance ties them in both.
// LocalSGD is in the list because both take it at one shape
// (experiments.ComparisonShape, H = 1); the schedules measure once failed
// on it at run time. Both price through sim.Compare, so each level's value
// is the same number in both, the lockstep level's (unit time only) too.
func TestCompareAndSchedulesRankAlike(t *testing.T) {
	t.Run("unit", func(t *testing.T) { compareRanksAlike(t, nil, "") })
	t.Run("gpu", func(t *testing.T) {
		compareRanksAlike(t, []string{"--model", "gpt-1.3b", "--gpu", "a100", "--link", "nvlink"},
			"cost: {cost_model: gpu, model: gpt-1.3b, gpu: a100, link: nvlink}\n")
	})
}

func compareRanksAlike(t *testing.T, costFlags []string, costKey string) {
	kinds := strings.Join([]string{"gpipe", "1f1b", "pipedream", "zb-h1", "zb-h2", "interleaved-1f1b", "looped-bfs", "hanayo", "zb-v", "localsgd"}, ",")
	var rep request.CompareReport
	out := pipelab(t, append([]string{"compare", "--ranks", "4", "--microbatches", "8", "--kind", kinds, "--format", "json"}, costFlags...)...)
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pipelab(t, "sweep", writeSpec(t, "experiment: tie\nmeasure: schedules\nranks: [4]\nmicrobatches: [8]\nkinds: ["+kinds+"]\n"+costKey), "--out", dir)
	tb := tables(t, dir)
	sweep := map[string]map[string]results.ScheduleMetric{} // level → kind → row
	for _, m := range tb.Schedules {
		if sweep[m.Level] == nil {
			sweep[m.Level] = map[string]results.ScheduleMetric{}
		}
		sweep[m.Level][m.Family] = m
	}
	// level is one level of one family in compare: its value and rank.
	type level struct {
		level string
		value *float64
		rank  int
	}
	ties := 0
	seen := map[int]int{}
	compared := map[string]int{} // level → families with a value in both
	for _, row := range rep.Families {
		levels := []level{{results.LevelFormula, row.Formula, row.FormulaRank}, {results.LevelSimulated, row.Makespan, row.MakespanRank}}
		// The measure has a lockstep level under unit time only (its grid
		// is timed in steps); its makespan is compare's step count.
		if costKey == "" {
			var steps *float64
			if row.Lockstep != nil {
				v := float64(*row.Lockstep)
				steps = &v
			}
			levels = append(levels, level{results.LevelLockstep, steps, row.LockstepRank})
		}
		for _, lv := range levels {
			got, ok := sweep[lv.level][row.Kind]
			if !ok {
				if lv.rank != 0 || lv.value != nil {
					t.Errorf("%s %s: compare ranks it %d, the sweep has no row", row.Kind, lv.level, lv.rank)
				}
				continue
			}
			if lv.value == nil {
				t.Errorf("%s %s: the sweep has %g, compare none", row.Kind, lv.level, got.Makespan)
				continue
			}
			// One computation (sim.Compare) behind both: the same bits.
			if got.Makespan != *lv.value {
				t.Errorf("%s at level %s: compare has %g, the schedules measure %g", row.Kind, lv.level, *lv.value, got.Makespan)
			}
			if int(got.KindRank) != lv.rank {
				t.Errorf("%s at level %s: compare ranks %d, the schedules measure %d", row.Kind, lv.level, lv.rank, got.KindRank)
			}
			compared[lv.level]++
		}
		seen[row.MakespanRank]++
	}
	want := []string{results.LevelFormula, results.LevelSimulated}
	if costKey == "" {
		want = append(want, results.LevelLockstep)
	}
	for _, level := range want {
		if compared[level] == 0 {
			t.Errorf("no family has a %s value in both: nothing compared at that level", level)
		}
	}
	for _, n := range seen {
		if n > 1 {
			ties += n
		}
	}
	if ties < 4 {
		t.Errorf("only %d families share a simulated rank; the case is meant to be tie-heavy (%v)", ties, seen)
	}
}
