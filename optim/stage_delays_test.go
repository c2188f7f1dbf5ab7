package optim

import (
	"math"
	"slices"
	"testing"
)

// sortedStats is the reference for the histogram statistics: the delays
// sorted, their sum, and numpy.percentile's linear interpolation between
// order statistics, computed from the rows Delays keeps.
func sortedStats(values []int, rows int) DelayStats {
	st := DelayStats{Rows: rows}
	if len(values) == 0 {
		return st
	}
	v := slices.Sorted(slices.Values(values))
	sum := 0
	for _, x := range v {
		sum += x
	}
	pos := 0.10 * float64(len(v)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(v)-1)
	st.Max, st.Mean = v[len(v)-1], float64(sum)/float64(len(v))
	st.P10 = float64(v[lo]) + (pos-float64(lo))*float64(v[hi]-v[lo])
	return st
}

// StageDelays gives, without keeping the rows, the statistics the rows of
// Delays give when sorted: the window's delays over every stage, and
// stage by stage the delay of the stage's own block at its updates.
func TestStageDelaysIsSortedRows(t *testing.T) {
	for _, sh := range []struct{ stages, n int }{{1, 5}, {2, 3}, {4, 40}, {5, 17}, {8, 80}} {
		tl := pipeDreamTimeline(t, sh.stages, sh.n)
		dt, err := Delays(tl)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []Window{Steady, All} {
			p, err := StageDelays(tl, w)
			if err != nil {
				t.Fatal(err)
			}
			rows := dt.Rows[w.first(len(dt.Rows)):]
			var every []int
			own := make([][]int, sh.stages)
			for _, r := range rows {
				every = append(every, r.Delays...)
				own[r.Stage] = append(own[r.Stage], r.Delays[r.Stage])
			}
			if want := sortedStats(every, len(rows)); p.Total != want || dt.Stats(w) != want {
				t.Errorf("S=%d N=%d window %d: total %+v, table %+v; want %+v", sh.stages, sh.n, w, p.Total, dt.Stats(w), want)
			}
			for s := range own {
				if want := sortedStats(own[s], len(own[s])); p.PerStage[s] != want {
					t.Errorf("S=%d N=%d window %d stage %d: %+v, want %+v", sh.stages, sh.n, w, s, p.PerStage[s], want)
				}
			}
			if want := dt.Stats(All).Max; p.MaxAll != want || p.Updates != len(dt.Rows) || p.TimeSteps != dt.TimeSteps {
				t.Errorf("S=%d N=%d: max all %d, %d updates, %g steps; want %d, %d, %g", sh.stages, sh.n, p.MaxAll, p.Updates, p.TimeSteps, want, len(dt.Rows), dt.TimeSteps)
			}
		}
	}
}

// In PipeDream's steady state the last stage runs B(m) the step after its
// F(m) (docs/reference.md §1.2): between them only the other stages'
// backwards of that one step are counted, so its own delay is small, and
// every stage's own delay stays within the window's maximum ⌊S² - S/2⌋.
func TestStageDelaysLastStageLeastStale(t *testing.T) {
	const stages = 8
	p, err := StageDelays(pipeDreamTimeline(t, stages, 10*stages), Steady)
	if err != nil {
		t.Fatal(err)
	}
	for s, st := range p.PerStage {
		if st.Max > DefaultDelta(stages) {
			t.Errorf("stage %d: own delay %d beyond ⌊S² - S/2⌋ = %d", s, st.Max, DefaultDelta(stages))
		}
		if s < stages-1 && st.Mean <= p.PerStage[stages-1].Mean {
			t.Errorf("stage %d: mean own delay %.2f not above the last stage's %.2f", s, st.Mean, p.PerStage[stages-1].Mean)
		}
	}
	if st := p.PerStage[stages-1]; st.Max >= stages {
		t.Errorf("last stage: own delay up to %d, want below S = %d (one step between its F and B)", st.Max, stages)
	}
}
