package tune

import (
	"fmt"
	"math"
	"slices"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// MeasuredProblem is what to tune when the stages' times were measured
// (cost.ReadCostsCSV, cost.ReadProfile) rather than modelled: the stages
// are those measured, so the tuner chooses the schedule and the microbatch
// count only, and with no memory model every candidate fits.
type MeasuredProblem struct {
	Costs cost.Measured
	// Ranks is the pipeline depth P; a schedule is tried when its table
	// has as many stages as were measured (one per rank, or V per rank).
	Ranks int
	// Microbatches lists the counts to try; empty means P, 2P and 4P.
	Microbatches []int
	// Schedules lists the schedules to try; empty means DefaultSchedules.
	Schedules []Schedule
	Sim       sim.Options
	// PostValidation is Problem's: candidates are ranked by their longest
	// rank span, and zb-auto chosen by it.
	PostValidation bool
}

// TuneMeasured simulates every schedule whose table has the measured
// stages, at every microbatch count, priced by the measurements, and
// returns the fastest per microbatch (Candidate.PerSample is per
// microbatch here: the measurements do not say how many samples one
// holds). Partitions are empty (the stages are fixed) and peaks zero. The
// baseline is Megatron-LM's schedule for the stage count at the best's
// microbatch count: 1F1B for one stage per rank, interleaved 1F1B with
// the measured stages per rank otherwise.
func TuneMeasured(p MeasuredProblem) (*Result, error) {
	stages := len(p.Costs.Stages)
	if p.Ranks < 1 || stages < p.Ranks || stages%p.Ranks != 0 {
		return nil, fmt.Errorf("tune: %d measured stages do not split over %d ranks", stages, p.Ranks)
	}
	schedules := p.Schedules
	if len(schedules) == 0 {
		schedules = DefaultSchedules
	}
	mbs := p.Microbatches
	if len(mbs) == 0 {
		mbs = []int{p.Ranks, 2 * p.Ranks, 4 * p.Ranks}
	}
	res := &Result{}
	var best *Candidate
	for _, m := range mbs {
		for _, sc := range schedules {
			c, why, err := p.candidate(sc, m)
			if err != nil {
				return nil, err
			}
			if c == nil {
				res.Skipped = append(res.Skipped, why)
				continue
			}
			res.Simulations++
			res.Candidates = append(res.Candidates, *c)
			if best == nil || c.PerSample < best.PerSample {
				best = c
			}
		}
	}
	if best == nil {
		return nil, fmt.Errorf("tune: no schedule has the %d measured stages on %d ranks (skipped: %v)", stages, p.Ranks, res.Skipped)
	}
	res.Best = *best
	base := Schedule{Family: "1f1b", Chunks: 1}
	if v := stages / p.Ranks; v > 1 {
		base = Schedule{Family: "interleaved-1f1b", Chunks: v}
	}
	b, why, err := p.candidate(base, best.Microbatches)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, fmt.Errorf("tune: the baseline cannot run: %s", why)
	}
	res.Simulations++
	res.Baseline = *b
	res.Speedup = b.PerSample / best.PerSample
	return res, nil
}

// candidate simulates schedule sc with m microbatches, or says why it
// cannot run on the measured stages.
func (p MeasuredProblem) candidate(sc Schedule, m int) (*Candidate, string, error) {
	t, why, err := p.table(sc, m)
	if t == nil {
		return nil, why, err
	}
	priced, err := p.Costs.ForTable(t)
	if err != nil {
		return nil, fmt.Sprintf("%s with %d microbatches: %v", sc, m, err), nil
	}
	tl, err := sim.Simulate(t, priced, p.Sim)
	if err != nil {
		return nil, "", fmt.Errorf("tune: simulating %s with %d microbatches: %w", sc, m, err)
	}
	span := sim.Makespan(tl)
	if math.IsNaN(span) {
		return nil, "", fmt.Errorf("tune: %s: the measured costs gave NaN", sc)
	}
	iteration, longest := span, 0.0
	if p.PostValidation {
		longest = slices.Max(sim.RankSpans(tl))
		iteration = longest
	}
	return &Candidate{Schedule: sc, Placement: placementName(t), Microbatches: m, Makespan: span, LongestSpan: longest,
		PerSample: iteration / float64(m), Fits: true, Table: t, Timeline: tl}, "", nil
}

// table generates schedule sc with m microbatches, or says why it cannot
// run on the measured stages. zb-auto is built from the measured times
// (ZBAuto) with the activation limit of the paper's ZB-1p, 1F1B's peak of
// P microbatches: without a memory model there is no other limit to take,
// and ZB-1p is the paper's default.
func (p MeasuredProblem) table(sc Schedule, m int) (t *pipeline.Table, why string, err error) {
	if sc.Family != ZBAutoFamily {
		t, err := pipeline.Generate(sc.Family, pipeline.Shape{Ranks: p.Ranks, Microbatches: m, Chunks: sc.Chunks})
		if err != nil {
			return nil, fmt.Sprintf("%s with %d microbatches: %v", sc, m, err), nil
		}
		return t, "", nil
	}
	if len(p.Costs.Stages) != p.Ranks || sc.Chunks > 1 {
		return nil, fmt.Sprintf("%s: the automatic schedule places one stage per rank, and %d stages were measured on %d ranks", sc, len(p.Costs.Stages), p.Ranks), nil
	}
	times := make([]StageTimes, p.Ranks)
	for s, st := range p.Costs.Stages {
		times[s] = StageTimes{TF: st.TF, TB: st.TB, TW: st.TW}
		if s < len(p.Costs.Comm) {
			times[s].Comm = p.Costs.Comm[s]
		}
	}
	auto, err := ZBAuto(ZBAutoProblem{Stages: times, Microbatches: m, BySpan: p.PostValidation})
	if err != nil {
		return nil, "", fmt.Errorf("tune: %w", err)
	}
	return auto.Table, "", nil
}
