package tune

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"pipelab/pipeline"
	"pipelab/pipeline/sim"
)

// tinyModel is a random heterogeneous model of n layers: decoder layers
// of different widths, so that layers differ in cost and in the size of
// the activation they pass on, between an embedding and a head.
func tinyModel(src *rand.Rand, n int) sim.Model {
	m := sim.Model{Name: "tiny", Blocks: []sim.Block{{Kind: sim.Embedding, Count: 1, Hidden: 64, Vocab: 500}}}
	for range n - 2 {
		h := 32 * (1 + src.IntN(4))
		m.Blocks = append(m.Blocks, sim.Block{Kind: sim.Decoder, Count: 1, Hidden: h, Heads: 4, FFN: 4 * h})
	}
	m.Blocks = append(m.Blocks, sim.Block{Kind: sim.Head, Count: 1, Hidden: 64, Vocab: 500 * (1 + src.IntN(8))})
	return m
}

func tinyProblem(src *rand.Rand, ranks, layers int) Problem {
	gpu := sim.GPU{Name: "test", PeakFLOPS: 1e12, MemoryBytes: 1e12}
	link := sim.Link{Name: "test", Latency: 1e-5, Bandwidth: 1e9}
	return Problem{
		Config:       sim.GPUConfig{Model: tinyModel(src, layers), GPU: gpu, Link: link, Microbatch: 2, Sequence: 64},
		Ranks:        ranks,
		Microbatches: []int{ranks, 2 * ranks},
		Schedules:    []Schedule{{"gpipe", 1}, {"1f1b", 1}, {"zb-h1", 1}, {"interleaved-1f1b", 2}, {"zb-v", 2}},
	}
}

// bruteForce simulates every contiguous partition of every schedule and
// microbatch count and returns all of them.
func bruteForce(t *testing.T, p Problem) []*Candidate {
	layers, err := p.Config.Layers()
	if err != nil {
		t.Fatal(err)
	}
	var all []*Candidate
	for _, m := range p.Microbatches {
		for _, sc := range p.Schedules {
			tab, err := pipeline.Generate(sc.Family, pipeline.Shape{Ranks: p.Ranks, Microbatches: m, Chunks: sc.Chunks})
			if err != nil {
				t.Fatal(err)
			}
			compositions(len(layers), tab.Stages(), func(part []int) {
				g, err := sim.NewGPUModelPartition(p.Config, part)
				if err != nil {
					t.Fatal(err)
				}
				tl, err := sim.Simulate(tab, g, sim.Options{})
				if err != nil {
					t.Fatal(err)
				}
				span := sim.Makespan(tl)
				all = append(all, &Candidate{Schedule: sc, Microbatches: m, Partition: slices.Clone(part),
					PerSample: span / float64(m*p.Config.Microbatch), PeakMemory: slices.Max(sim.PeakMemory(tl, g))})
			})
		}
	}
	return all
}

func TestTuneFindsBruteForceOptimum(t *testing.T) {
	src := rand.New(rand.NewPCG(7, 1))
	shapes := []struct{ ranks, layers, trials int }{{2, 7, 4}, {3, 8, 2}}
	for _, sh := range shapes {
		for trial := range sh.trials {
			p := tinyProblem(src, sh.ranks, sh.layers)
			all := bruteForce(t, p)
			for _, limit := range memoryLimits(p, all) {
				p.MemoryBytes = limit
				want := fastestWithin(all, limit)
				res, err := Tune(p)
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Best; math.Abs(got.PerSample-want.PerSample) > 1e-12*want.PerSample || got.PeakMemory > limit {
					t.Errorf("P=%d trial %d, limit %.4g: tuner chose %s M=%d %v at %.6g s/sample (peak %.4g); brute force %s M=%d %v at %.6g s/sample",
						sh.ranks, trial, limit, got.Schedule, got.Microbatches, got.Partition, got.PerSample, got.PeakMemory,
						want.Schedule, want.Microbatches, want.Partition, want.PerSample)
				}
				checkBaseline(t, res)
			}
		}
	}
}

// memoryLimits returns no limit, then a limit that only half of the
// brute-force candidates meet.
func memoryLimits(p Problem, all []*Candidate) []float64 {
	peaks := make([]float64, len(all))
	for i, c := range all {
		peaks[i] = c.PeakMemory
	}
	slices.Sort(peaks)
	return []float64{p.Config.GPU.MemoryBytes, peaks[len(peaks)/2]}
}

// checkBaseline: the baseline's schedules and even split are among the
// tuner's candidates, so a baseline that fits cannot beat the choice.
func checkBaseline(t *testing.T, res *Result) {
	t.Helper()
	if res.Baseline.Fits && res.Speedup < 1 {
		t.Errorf("speedup %g below 1 over a baseline that fits (%s %v)", res.Speedup, res.Baseline.Schedule, res.Baseline.Partition)
	}
	if want := res.Baseline.PerSample / res.Best.PerSample; res.Speedup != want {
		t.Errorf("speedup %g, want baseline/best = %g", res.Speedup, want)
	}
}

// TestLocalSearchIsLocalOptimum turns enumeration off: the choice must
// beat every partition one move of its neighbourhood away (one layer
// between neighbouring stages, or off the busiest rank, or onto the
// idlest), in its own schedule, and no baseline that fits may beat it. It
// need not be the global optimum: local search can stop in a local one.
func TestLocalSearchIsLocalOptimum(t *testing.T) {
	src := rand.New(rand.NewPCG(11, 1))
	for trial := range 4 {
		p := tinyProblem(src, 2, 8)
		p.Exhaustive = -1
		res, err := Tune(p)
		if err != nil {
			t.Fatal(err)
		}
		checkBaseline(t, res)
		best := res.Best
		layers, _ := p.Config.Layers()
		seconds := layerSeconds(p.Config, layers)
		moves := append(adjacentMoves(len(best.Partition)),
			rankMoves(best.Partition, best.Table.Placement, best.Table.Ranks(), seconds)...)
		for _, m := range moves {
			part := m.apply(best.Partition)
			if part == nil {
				continue
			}
			c, err := simulate(p, best.Table, best.Schedule, part)
			if err != nil {
				t.Fatal(err)
			}
			if better(c, &best) {
				t.Errorf("trial %d: %s %v (%.6g s/sample) beats the choice %v (%.6g)",
					trial, best.Schedule, part, c.PerSample, best.Partition, best.PerSample)
			}
		}
	}
}

func TestRankMoves(t *testing.T) {
	// V placement of 4 stages on 2 ranks: 0, 1, 1, 0. Rank 0 holds stages
	// 0 and 3 with 3 + 1 layers of cost 1, rank 1 stages 1 and 2 with 1 + 1:
	// rank 0 is the busiest, rank 1 the idlest. Moves between stages two or
	// more apart: off rank 0's stages 0 (to 2, 3) and 3 (to 0, 1), and onto
	// rank 1's stages from stages not on rank 0 (none are two apart).
	got := rankMoves([]int{3, 1, 1, 1}, []int{0, 1, 1, 0}, 2, []float64{1, 1, 1, 1, 1, 1})
	want := []move{{0, 2}, {0, 3}, {3, 0}, {3, 1}}
	if !slices.Equal(got, want) {
		t.Errorf("rankMoves = %v, want %v", got, want)
	}
	if got := adjacentMoves(3); !slices.Equal(got, []move{{0, 1}, {1, 0}, {1, 2}, {2, 1}}) {
		t.Errorf("adjacentMoves(3) = %v", got)
	}
	if (move{1, 0}).apply([]int{2, 1}) != nil {
		t.Error("a move that empties a stage was applied")
	}
}

func TestTuneRejects(t *testing.T) {
	src := rand.New(rand.NewPCG(3, 1))
	tests := []struct {
		name   string
		change func(*Problem)
	}{
		{"no ranks", func(p *Problem) { p.Ranks = 0 }},
		{"more ranks than layers", func(p *Problem) { p.Ranks = 9 }},
		{"zero microbatches", func(p *Problem) { p.Microbatches = []int{0} }},
		{"unknown family", func(p *Problem) { p.Schedules = []Schedule{{"no-such", 1}} }},
		{"nothing fits", func(p *Problem) { p.MemoryBytes = 1 }},
	}
	for _, tt := range tests {
		p := tinyProblem(src, 2, 7)
		tt.change(&p)
		if _, err := Tune(p); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

// fastestWithin returns the brute-force optimum: the candidate with the
// least time per sample whose peak memory fits the limit, or nil.
func fastestWithin(all []*Candidate, limit float64) *Candidate {
	var best *Candidate
	for _, c := range all {
		if c.PeakMemory <= limit && (best == nil || c.PerSample < best.PerSample) {
			best = c
		}
	}
	return best
}
