package tune

import (
	"fmt"
	"math"
	"slices"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// ZBAutoFamily is the name of the Zero Bubble paper's automatic schedule
// wherever a schedule family is named ("--kind zb-auto").
const ZBAutoFamily = "zb-auto"

// StageTimes are the measured or modelled times of one pipeline stage that
// the automatic Zero Bubble schedule is built from, in one time unit: the
// forward T_F, the input-gradient backward T_B (I), the weight-gradient
// backward T_W (W), and Comm, one transfer between this stage and the next
// (an activation down or a gradient up); the last stage's Comm is unused.
type StageTimes struct {
	TF, TB, TW, Comm float64
}

// ZBAutoProblem is what the automatic schedule is asked for: one stage per
// rank, so P is len(Stages).
type ZBAutoProblem struct {
	Stages       []StageTimes
	Microbatches int
	// MaxActivations is the most microbatches of activations a rank may
	// hold at once, counted as pipelab counts them (sim.PeakActivations):
	// a microbatch from its forward until its W. Zero means P, the limit of
	// the paper's ZB-1p (the peak of 1F1B); the paper's ZB-2p is 2P.
	MaxActivations int
	// WeightGradShare is M_W / M_B, the share of a microbatch's
	// activations that its W still needs once its I has run (the paper's
	// memory model: F adds M_B, I frees M_B - M_W, W frees M_W). Zero
	// means 1, pipelab's activation count, under which a microbatch holds
	// all of M_B until its W; below 1 the limit is in M_B, as the paper's
	// ZB-1p and ZB-2p set it, and a rank may then hold more than
	// MaxActivations microbatches whose W is pending.
	WeightGradShare float64
	// BySpan chooses among the candidates by their longest rank span
	// first, the makespan breaking ties: the paper's own cost (best_time
	// in its auto_schedule.py, the longest span from a stage's first F to
	// its last W), what an iteration takes where iterations overlap, as
	// under the Zero Bubble runtime's optimizer post-validation
	// (cost.GPUModel.PostValidatedIteration). False chooses by the
	// makespan first, what an iteration takes where every rank waits for
	// the pipeline to drain.
	BySpan bool
}

// ZBAutoSchedule is the automatic schedule and how it was chosen.
type ZBAutoSchedule struct {
	// Table is the chosen schedule, family "zb-auto": every backward split
	// into I and W, rows laid out as the unit-time grid of their order.
	Table *pipeline.Table
	// Makespan is the event simulator's time of Table (fixed order) under
	// the problem's times.
	Makespan float64
	// Source names the candidate that won: the heuristic with its options,
	// or a handcrafted schedule (zb-h1, zb-h2) when that was faster.
	Source string
	// Candidates holds every candidate timed (those within the limit),
	// in the order tried.
	Candidates []ZBAutoCandidate
	// Simulations counts the sim.Simulate calls made: one per candidate
	// and one to lay the winner out.
	Simulations int
}

// ZBAutoCandidate is one schedule the automatic scheduler timed.
type ZBAutoCandidate struct {
	Source   string
	Makespan float64
	// LongestSpan is the longest time any rank spends from its first
	// compute start to its last compute end: the paper's cost, what an
	// iteration takes when ranks need not wait for each other between
	// iterations (its optimizer post-validation).
	LongestSpan     float64
	PeakActivations int
}

// beats orders candidates: the shorter makespan, and between makespans
// equal to a rounding (many orders reach the bound that the last rank's
// start and busy time set) the shorter longest span; by span, the other
// way round (ZBAutoProblem.BySpan).
func (c ZBAutoCandidate) beats(o ZBAutoCandidate, bySpan bool) bool {
	first, second := [2]float64{c.Makespan, c.LongestSpan}, [2]float64{o.Makespan, o.LongestSpan}
	if bySpan {
		first, second = [2]float64{c.LongestSpan, c.Makespan}, [2]float64{o.LongestSpan, o.Makespan}
	}
	if math.Abs(first[0]-second[0]) > 1e-9*second[0] {
		return first[0] < second[0]
	}
	return first[1] < second[1]-1e-9*second[1]
}

// ZBAuto builds the Zero Bubble paper's automatic schedule (Qi et al.,
// arXiv 2401.10241, §3 "automatic scheduling"): a heuristic that, from the
// stages' T_F, T_B, T_W and transfer times, warms up with as many forwards
// as the memory limit allows without delaying the first backward, then
// runs one forward and one backward per round and puts the weight
// gradients W into the gaps the times leave (and where the limit forces
// one to free memory); see zbBuilder. Like the paper, it runs the
// heuristic under each combination of its options and keeps the fastest.
// Unlike the paper, candidates are timed by the event simulator (fixed
// order, sim.Simulate) rather than the heuristic's own estimate, and the
// handcrafted ZB-H1 and ZB-H2 are candidates too whenever their peak fits
// the limit, so the result is never slower than either under the same
// times. Between equal makespans the shorter longest rank span (the
// paper's cost) wins, and then the candidate tried first (the
// heuristic's). A problem whose tables would need more memory than the
// limit (ZBAutoCellBound cells of ZBAutoCellBytes, budget.Check) is
// refused before any is built.
func ZBAuto(p ZBAutoProblem) (*ZBAutoSchedule, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if err := p.checkSize(); err != nil {
		return nil, err
	}
	limit := p.limit()
	cost := stageTimesCost(p.Stages)
	out := &ZBAutoSchedule{}
	var best *pipeline.Table
	var bestC ZBAutoCandidate
	consider := func(t *pipeline.Table, source string) error {
		if peakHeld(t, p.share()) > float64(limit)+1e-9 {
			return nil
		}
		peak := slices.Max(sim.FixedPeakActivations(t))
		tl, err := sim.Simulate(t, cost, sim.Options{})
		out.Simulations++
		if err != nil {
			return fmt.Errorf("tune: zb-auto: %s: %w", source, err)
		}
		c := ZBAutoCandidate{Source: source, Makespan: sim.Makespan(tl), LongestSpan: slices.Max(sim.RankSpans(tl)), PeakActivations: peak}
		out.Candidates = append(out.Candidates, c)
		if best == nil || c.beats(bestC, p.BySpan) {
			best, bestC, out.Makespan, out.Source = t, c, c.Makespan, source
		}
		return nil
	}
	for _, k := range allZBKnobs() {
		t, err := newZBBuilder(p, k).build()
		if err != nil {
			return nil, err
		}
		if err := consider(t, "heuristic ("+k.String()+")"); err != nil {
			return nil, err
		}
	}
	for _, family := range []string{"zb-h1", "zb-h2"} {
		t, err := pipeline.Generate(family, pipeline.Shape{Ranks: len(p.Stages), Microbatches: p.Microbatches})
		if err != nil {
			return nil, fmt.Errorf("tune: zb-auto: %w", err)
		}
		if err := consider(t, family); err != nil {
			return nil, err
		}
	}
	if best == nil {
		return nil, fmt.Errorf("tune: zb-auto: no schedule holds at most %d activations per rank", limit)
	}
	t, err := unitGrid(best)
	out.Simulations++
	if err != nil {
		return nil, err
	}
	t.Family = ZBAutoFamily
	out.Table = t
	return out, nil
}

// check refuses a problem the heuristic cannot take, naming what is wrong.
func (p ZBAutoProblem) check() error {
	switch {
	case len(p.Stages) < 1:
		return fmt.Errorf("tune: zb-auto: no stages")
	case p.Microbatches < 1:
		return fmt.Errorf("tune: zb-auto: microbatches must be at least 1, got %d", p.Microbatches)
	case p.MaxActivations < 0:
		return fmt.Errorf("tune: zb-auto: the activation limit must be at least 1 (0 for P), got %d", p.MaxActivations)
	case !(p.WeightGradShare >= 0 && p.WeightGradShare <= 1):
		return fmt.Errorf("tune: zb-auto: the weight-gradient share M_W/M_B must be in (0, 1] (0 for 1), got %g", p.WeightGradShare)
	}
	for s, st := range p.Stages {
		for _, v := range []struct {
			name string
			x    float64
		}{{"T_F", st.TF}, {"T_B", st.TB}, {"T_W", st.TW}, {"transfer time", st.Comm}} {
			if !(v.x >= 0) || math.IsInf(v.x, 1) {
				return fmt.Errorf("tune: zb-auto: stage %d: %s must be finite and not negative, got %g", s, v.name, v.x)
			}
		}
	}
	return nil
}

// limit is MaxActivations with its default.
func (p ZBAutoProblem) limit() int {
	if p.MaxActivations == 0 {
		return len(p.Stages)
	}
	return p.MaxActivations
}

// share is WeightGradShare with its default.
func (p ZBAutoProblem) share() float64 {
	if p.WeightGradShare == 0 {
		return 1
	}
	return p.WeightGradShare
}
