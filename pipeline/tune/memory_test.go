package tune

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// checkFloor simulates table t under the GPU model for part (one entry per
// model part, cost.GPUForTablePartition) and fails if
// memoryFloor exceeds the peak sim.PeakMemory reports: pruning by the
// floor would then drop a candidate that fits. Under the Fixed policy the
// floor is the fixed-order walk (sim.FixedPeakMemory), which must equal
// the simulated peak exactly, not merely stay below it.
func checkFloor(t *testing.T, c cost.GPUConfig, tab *pipeline.Table, part []int, opt sim.Options, what string) {
	t.Helper()
	g, err := cost.GPUForTablePartition(c, tab, part)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := sim.Simulate(tab, g, opt)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	peak := slices.Max(sim.PeakMemory(tl, g))
	floor := memoryFloor(tab, forwardStages(tab), opt.Policy == sim.Fixed, g)
	if floor > peak {
		t.Errorf("%s, partition %v: memory floor %.6g exceeds the simulated peak %.6g", what, part, floor, peak)
	}
	if opt.Policy == sim.Fixed && floor != peak {
		t.Errorf("%s, partition %v: under the Fixed policy the floor %.17g should be the simulated peak %.17g", what, part, floor, peak)
	}
}

// noisy is policy pol with compute noise, a straggler and transfer jitter:
// under the Fixed policy the order, and so the peak, must not change.
func noisy(pol sim.Policy) sim.Options {
	return sim.Options{Policy: pol, Variability: sim.Variability{Seed: 3, Sigma: 0.3, CommSigma: 0.3, Stragglers: map[int]float64{1: 1.5}}}
}

// TestMemoryFloorBelowPeak checks the bound against the simulator over
// model presets (dense, vision-language, MoE), every default schedule
// (split ones included: zb-h1, zb-h2, interleaved-zb, zb-v; and Chimera,
// whose ranks hold two replicas), two depths,
// two microbatch counts, both execution policies with and without
// variability and two partitions each (even by count and balanced by
// time).
func TestMemoryFloorBelowPeak(t *testing.T) {
	gpu, _ := cost.LookupGPU("h100")
	link, _ := cost.LookupLink("ib-ndr")
	checked := 0
	for _, name := range []string{"gpt-1.3b", "vlm-7b", "deepseek-moe-16b"} {
		model, err := cost.LookupNetwork(name)
		if err != nil {
			t.Fatal(err)
		}
		c := cost.GPUConfig{Network: model, GPU: gpu, Link: link, Microbatch: 1, Sequence: 2048}
		layers, err := c.Layers()
		if err != nil {
			t.Fatal(err)
		}
		seconds := layerSeconds(c, layers)
		for _, ranks := range []int{2, 4} {
			for _, sc := range DefaultSchedules {
				for _, m := range []int{ranks, 2 * ranks} {
					tab, err := defaultScheduleTable(c, sc, pipeline.Shape{Ranks: ranks, Microbatches: m, Chunks: sc.Chunks})
					if err != nil && (sc.Family == "dualpipev" || sc.Family == "dualpipe") && m < 2*ranks {
						continue // DualPipeV and DualPipe need M >= 2P, and refuse M = P
					}
					if err != nil {
						t.Fatalf("%s: %v", sc, err)
					}
					_, parts := cost.ModelParts(tab)
					even, err := cost.EvenPartition(layers, parts)
					if err != nil {
						t.Fatal(err)
					}
					balanced, err := BalancedPartition(seconds, parts)
					if err != nil {
						t.Fatal(err)
					}
					for _, opt := range []sim.Options{{Policy: sim.Fixed}, {Policy: sim.Ready}, noisy(sim.Fixed), noisy(sim.Ready)} {
						for _, part := range [][]int{even, balanced} {
							checkFloor(t, c, tab, part, opt, name+" "+sc.String())
							checked++
						}
					}
				}
			}
		}
	}
	// 3 models × 2 depths × the default schedules × 2 counts × 4 options
	// × 2 partitions, less DualPipeV and DualPipe at M = P (2 × 3 × 2 × 4
	// × 2 cases).
	if want := 3*2*len(DefaultSchedules)*2*4*2 - 2*3*2*4*2; checked != want {
		t.Errorf("checked %d cases, want %d", checked, want)
	}
}

// TestMemoryFloorEveryPartition checks the bound on every contiguous
// partition of random heterogeneous tiny models under the schedules of
// the brute-force test, on 2 ranks and, for Chimera (whose 4-rank table
// puts parts r and 3-r on rank r), on 4 ranks too, under both policies.
func TestMemoryFloorEveryPartition(t *testing.T) {
	src := rand.New(rand.NewPCG(5, 1))
	chimera := 0
	for trial := range 3 {
		for _, ranks := range []int{2, 4} {
			p := tinyProblem(src, ranks, 9)
			layers, _ := p.Config.Layers()
			for _, sc := range p.Schedules {
				if ranks == 4 && sc.Family != "chimera" {
					continue
				}
				tab, err := pipeline.Generate(sc.Family, pipeline.Shape{Ranks: p.Ranks, Microbatches: 2 * p.Ranks, Chunks: sc.Chunks})
				if err != nil {
					t.Fatal(err)
				}
				_, parts := cost.ModelParts(tab)
				compositions(len(layers), parts, func(part []int) {
					for _, opt := range []sim.Options{{Policy: sim.Fixed}, {Policy: sim.Ready}} {
						checkFloor(t, p.Config, tab, part, opt, fmt.Sprintf("trial %d P=%d %s", trial, ranks, sc))
						if sc.Family == "chimera" {
							chimera++
						}
					}
				})
			}
		}
	}
	// Per trial: C(8, 1) partitions into 2 parts and C(8, 3) into 4, each
	// under two policies.
	if want := 3 * 2 * (8 + 56); chimera != want {
		t.Errorf("checked %d Chimera cases, want %d", chimera, want)
	}
}

// TestPruningKeepsChoice: on the brute-force cases (every partition
// enumerated, with and without a limit that excludes half the
// candidates), skipping the candidates whose floor exceeds the limit
// leaves the choice and the baseline as they are, since a pruned
// candidate cannot fit (TestMemoryFloorBelowPeak) and one that fits beats
// any that does not; it may only save simulations.
func TestPruningKeepsChoice(t *testing.T) {
	src := rand.New(rand.NewPCG(7, 1))
	saved := 0
	for _, sh := range bruteShapes {
		for trial := range sh.trials {
			p := tinyProblem(src, sh.ranks, sh.layers)
			all := bruteForce(t, p)
			for _, limit := range memoryLimits(p, all) {
				p.MemoryBytes = limit
				p.simulateAll = true
				full, err := Tune(p)
				if err != nil {
					t.Fatal(err)
				}
				p.simulateAll = false
				pruned, err := Tune(p)
				if err != nil {
					t.Fatal(err)
				}
				for _, pair := range [][2]Candidate{{full.Best, pruned.Best}, {full.Baseline, pruned.Baseline}} {
					a, b := pair[0], pair[1]
					if a.Schedule != b.Schedule || a.Microbatches != b.Microbatches || !slices.Equal(a.Partition, b.Partition) || a.PerSample != b.PerSample {
						t.Errorf("P=%d trial %d, limit %.4g: without pruning %s M=%d %v (%.6g s), with %s M=%d %v (%.6g s)",
							sh.ranks, trial, limit, a.Schedule, a.Microbatches, a.Partition, a.PerSample,
							b.Schedule, b.Microbatches, b.Partition, b.PerSample)
					}
				}
				if pruned.Simulations > full.Simulations {
					t.Errorf("P=%d trial %d: %d simulations with pruning, %d without", sh.ranks, trial, pruned.Simulations, full.Simulations)
				}
				saved += full.Simulations - pruned.Simulations
			}
		}
	}
	// Without a single pruned candidate the comparison would prove nothing.
	if saved == 0 {
		t.Error("the memory floor pruned no candidate in any case")
	}
	t.Logf("pruning saved %d simulations over the cases", saved)
}

// defaultScheduleTable generates one of DefaultSchedules for a shape;
// zb-auto, which depends on the costs, is built from the GPU model's even
// cut of c with the limit 2P.
func defaultScheduleTable(c cost.GPUConfig, sc Schedule, sh pipeline.Shape) (*pipeline.Table, error) {
	if sc.Family != ZBAutoFamily {
		return pipeline.Generate(sc.Family, sh)
	}
	shape, err := pipeline.Generate("zb-h1", sh)
	if err != nil {
		return nil, err
	}
	g, err := cost.GPUForTable(c, shape)
	if err != nil {
		return nil, err
	}
	auto, err := ZBAuto(ZBAutoProblem{Stages: StageTimesOf(g, sh.Ranks), Microbatches: sh.Microbatches,
		MaxActivations: 2 * sh.Ranks, WeightGradShare: WeightGradShareOf(g, sh.Ranks)})
	if err != nil {
		return nil, err
	}
	return auto.Table, nil
}
