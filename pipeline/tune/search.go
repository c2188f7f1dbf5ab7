package tune

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// Candidate is one way to run the model, simulated.
type Candidate struct {
	Schedule Schedule
	// Placement is "loop" or "v" (stage s on rank s mod P, or zig-zag),
	// or "bidirectional" for a table with Routes (Chimera: stage s on rank
	// s, its replica P+s on rank P-1-s).
	Placement    string
	Microbatches int
	// Partition is the number of layers on each model part, in model
	// order (cost.ModelParts): on each stage, or in a table with Routes on
	// each part that a stage of every route runs (Chimera: P parts, part
	// p on stages p and P+p).
	Partition []int
	// Makespan is the simulated time of one iteration, seconds.
	Makespan float64
	// PerSample is Makespan over the samples of the iteration
	// (microbatches × microbatch size): the inverse of throughput. Under
	// Problem.PostValidation it is LongestSpan over the samples.
	PerSample float64
	// LongestSpan is, under Problem.PostValidation, the longest rank span
	// of the timeline (sim.RankSpans), what an iteration takes when
	// iterations overlap; zero otherwise.
	LongestSpan float64
	// PeakMemory is the largest peak over the ranks, bytes.
	PeakMemory float64
	// Fits reports whether PeakMemory is within the limit.
	Fits     bool
	Table    *pipeline.Table
	Timeline *sim.Timeline

	// bounded marks a candidate the search did not simulate because its
	// memoryFloor already exceeds the limit: PeakMemory holds that floor,
	// and the times are zero. Tune simulates any bounded candidate it
	// reports.
	bounded bool
}

// better orders candidates: one that fits beats one that does not; among
// those that fit the lower time per sample wins, among those that do not
// the lower peak.
func better(a, b *Candidate) bool {
	switch {
	case b == nil:
		return true
	case a.Fits != b.Fits:
		return a.Fits
	case !a.Fits && a.PeakMemory != b.PeakMemory:
		return a.PeakMemory < b.PeakMemory
	}
	return a.PerSample < b.PerSample
}

// Result is the tuner's choice and what it was measured against.
type Result struct {
	// Best is the fastest candidate that fits.
	Best Candidate
	// Baseline is Megatron-LM's way at Best's microbatch count: layers
	// split evenly by count, 1F1B or interleaved 1F1B with 2 chunks,
	// whichever is faster (and fits, if either does).
	Baseline Candidate
	// Speedup is Baseline.PerSample / Best.PerSample.
	Speedup float64
	// Candidates holds the best partition found for each schedule and
	// microbatch count that could be generated, in the order tried.
	Candidates []Candidate
	// Skipped says why a schedule and microbatch count were not tried.
	Skipped []string
	// Simulations counts the Simulate calls.
	Simulations int
}

// search is one schedule at one microbatch count.
type search struct {
	p       Problem
	layers  []cost.Layer
	seconds []float64
	sched   Schedule
	mbs     int

	table    *pipeline.Table
	layout   layout // the model parts of table and their ranks
	forwards []bool // forwardStages of table
	seen     map[string]*Candidate
	sims     int
}

// Tune searches partitions, schedules and microbatch counts for the
// problem. For each schedule and count it simulates every partition when
// there are at most Problem.Exhaustive of them; otherwise it starts from
// three partitions, the one that balances per-layer compute time over the
// model parts (BalancedPartition), the even split by count, and one that
// balances it over the ranks, and improves each by moving one layer at a
// time from one part to another (between neighbouring parts, else off
// the busiest rank or onto the idlest) while the simulated time per sample
// falls (or, while no candidate fits, the peak memory or its bound).
// The layers are cut into the table's model parts (cost.ModelParts): one
// per stage, except in a table with Routes, where the stages of each
// route run replicas of the same parts (Chimera: P parts for 2P stages).
// A partition whose lower bound on peak memory (static bytes plus
// activations the rank must hold, see memoryFloor) exceeds the limit is
// not simulated: it cannot fit.
// Schedules are searched in parallel; the result does not depend on the
// order they finish in, and ties go to the schedule and count listed first.
func Tune(p Problem) (*Result, error) {
	p, layers, err := p.withDefaults()
	if err != nil {
		return nil, err
	}
	seconds := layerSeconds(p.Config, layers)
	var searches []*search
	for _, m := range p.Microbatches {
		for _, sc := range p.Schedules {
			searches = append(searches, &search{p: p, layers: layers, seconds: seconds, sched: sc, mbs: m})
		}
	}
	found := make([]*Candidate, len(searches))
	skipped := make([]string, len(searches))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, s := range searches {
		g.Go(func() error {
			c, reason, err := s.run()
			found[i], skipped[i] = c, reason
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	res := &Result{}
	var best *Candidate
	for i, c := range found {
		res.Simulations += searches[i].sims
		if skipped[i] != "" {
			res.Skipped = append(res.Skipped, skipped[i])
			continue
		}
		if better(c, best) {
			best = c
		}
	}
	if best == nil {
		return nil, fmt.Errorf("tune: no schedule could be generated: %s", strings.Join(res.Skipped, "; "))
	}
	if !best.Fits {
		return nil, nothingFits(p, found)
	}
	for i, c := range found {
		if skipped[i] != "" {
			continue
		}
		if c.bounded {
			// Reported candidates carry simulated times and peaks.
			if c, err = simulate(p, c.Table, c.Schedule, c.Partition); err != nil {
				return nil, err
			}
			res.Simulations++
		}
		res.Candidates = append(res.Candidates, *c)
	}
	res.Best = *best
	base, sims, err := baseline(p, layers, best.Microbatches)
	res.Simulations += sims
	if err != nil {
		return nil, err
	}
	res.Baseline = *base
	res.Speedup = base.PerSample / best.PerSample
	return res, nil
}

// run searches one schedule at one microbatch count. A schedule that
// cannot be generated for the shape (Chimera with odd P, or M not a
// multiple of P), or cuts the model into more parts than it has layers, is
// a reason to skip, not an error.
func (s *search) run() (*Candidate, string, error) {
	t, err := s.shapeTable()
	if err != nil {
		return nil, fmt.Sprintf("%s with %d microbatches: %v", s.sched, s.mbs, err), nil
	}
	lay := newLayout(t)
	if lay.parts > len(s.layers) {
		return nil, fmt.Sprintf("%s: %d model parts for %d layers", s.sched, lay.parts, len(s.layers)), nil
	}
	s.table, s.layout, s.forwards, s.seen = t, lay, forwardStages(t), map[string]*Candidate{}
	if n := Partitions(len(s.layers), lay.parts, s.p.Exhaustive); n <= s.p.Exhaustive {
		best, err := s.enumerate()
		return best, "", err
	}
	balanced, err := BalancedPartition(s.seconds, lay.parts)
	if err != nil {
		return nil, "", err
	}
	starts := [][]int{balanced}
	if even, err := cost.EvenPartition(s.layers, lay.parts); err == nil {
		starts = append(starts, even)
	}
	starts = append(starts, rankBalanced(balanced, lay, s.seconds))
	starts = distinct(starts)
	var best *Candidate
	for _, start := range starts {
		c, err := s.climb(start)
		if err != nil {
			return nil, "", err
		}
		if better(c, best) {
			best = c
		}
	}
	best, err = s.timed(best)
	return best, "", err
}

// distinct drops the partitions already listed.
func distinct(parts [][]int) [][]int {
	var out [][]int
	for _, p := range parts {
		if !slices.ContainsFunc(out, func(q []int) bool { return slices.Equal(p, q) }) {
			out = append(out, p)
		}
	}
	return out
}

// enumerate simulates every contiguous partition and returns the best.
func (s *search) enumerate() (*Candidate, error) {
	var best *Candidate
	err := EachPartition(len(s.layers), s.layout.parts, func(part []int) error {
		c, err := s.evaluate(part)
		if err == nil && better(c, best) {
			best = c
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.timed(best)
}

// timed simulates the search's winner again for its timeline, which
// evaluate drops; a bounded winner is left for Tune, which simulates it
// only if it is reported.
func (s *search) timed(best *Candidate) (*Candidate, error) {
	if best.bounded {
		return best, nil
	}
	s.sims++
	return simulate(s.p, best.Table, s.sched, best.Partition)
}

// climb moves one layer from one model part to another, taking the best
// move each round, until no move improves the candidate. Moves between
// neighbouring parts are tried first; when none helps, the rankMoves
// between parts further apart.
func (s *search) climb(start []int) (*Candidate, error) {
	cur, err := s.evaluate(start)
	if err != nil {
		return nil, err
	}
	adjacent := adjacentMoves(len(start))
	for {
		next, err := s.bestMove(cur, adjacent)
		if err == nil && next == nil {
			far := rankMoves(cur.Partition, s.layout, s.seconds)
			next, err = s.bestMove(cur, far)
		}

		if err != nil {
			return nil, err
		}
		if next == nil {
			return cur, nil
		}
		cur = next
	}
}

// bestMove returns the best candidate one of the moves away from cur that
// beats it, or nil.
func (s *search) bestMove(cur *Candidate, moves []move) (*Candidate, error) {
	var next *Candidate
	for _, m := range moves {
		part := m.apply(cur.Partition)
		if part == nil {
			continue
		}
		c, err := s.evaluate(part)
		if err != nil {
			return nil, err
		}
		if better(c, cur) && better(c, next) {
			next = c
		}
	}
	return next, nil
}

// evaluate simulates the schedule with a partition, once per partition.
// A partition whose memoryFloor exceeds the limit cannot fit, so it is not
// simulated: it becomes a bounded candidate with the floor as its peak
// (unless Problem.simulateAll).
func (s *search) evaluate(part []int) (*Candidate, error) {
	key := partitionKey(part)
	if c, ok := s.seen[key]; ok {
		return c, nil
	}
	if ctx := s.p.Sim.Context; ctx != nil && ctx.Err() != nil {
		return nil, ctx.Err() // Problem.Sim.Context ends the search too
	}
	g, err := cost.GPUForTablePartition(s.p.Config, s.table, part)
	if err != nil {
		return nil, fmt.Errorf("tune: %s: %w", s.sched, err)
	}
	t, err := s.tableFor(g)
	if err != nil {
		return nil, err
	}
	var c *Candidate
	if floor := memoryFloor(t, s.forwards, s.p.Sim.Policy == sim.Fixed, g); !s.p.simulateAll && floor > s.p.MemoryBytes {
		c = &Candidate{Schedule: s.sched, Placement: placementName(t), Microbatches: t.Microbatches,
			Partition: slices.Clone(part), PeakMemory: floor, Table: t, bounded: true}
	} else {
		if c, err = simulateModel(s.p, t, s.sched, part, g); err != nil {
			return nil, err
		}
		s.sims++
		// Timelines are large; run keeps only the winner's.
		c.Timeline = nil
	}
	s.seen[key] = c
	return c, nil
}

// simulate times table t under the GPU model with the given partition of
// the layers into t's model parts (cost.GPUForTablePartition).
func simulate(p Problem, t *pipeline.Table, sched Schedule, part []int) (*Candidate, error) {
	g, err := cost.GPUForTablePartition(p.Config, t, part)
	if err != nil {
		return nil, fmt.Errorf("tune: %s: %w", sched, err)
	}
	return simulateModel(p, t, sched, part, g)
}

// simulateModel times table t under g, the GPU model built for t and part.
func simulateModel(p Problem, t *pipeline.Table, sched Schedule, part []int, g cost.StageModel) (*Candidate, error) {
	tl, err := sim.Simulate(t, g, p.Sim)
	if err != nil {
		return nil, fmt.Errorf("tune: simulating %s with %d microbatches, partition %v: %w", sched, t.Microbatches, part, err)
	}
	span := sim.Makespan(tl)
	peak := slices.Max(sim.PeakMemory(tl, g))
	if math.IsNaN(span) || math.IsNaN(peak) {
		return nil, fmt.Errorf("tune: %s, partition %v: the timing model gave NaN", sched, part)
	}
	iteration, longest := span, 0.0
	if p.PostValidation {
		longest = slices.Max(sim.RankSpans(tl))
		iteration = longest
	}
	return &Candidate{
		Schedule: sched, Placement: placementName(t), Microbatches: t.Microbatches, Partition: slices.Clone(part),
		Makespan: span, PerSample: iteration / float64(t.Microbatches*p.Config.Microbatch), LongestSpan: longest,
		PeakMemory: peak, Fits: peak <= p.MemoryBytes, Table: t, Timeline: tl,
	}, nil
}

func partitionKey(part []int) string {
	var b strings.Builder
	for i, n := range part {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}
