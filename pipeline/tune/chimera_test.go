package tune

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// chimeraFixedPeak computes, without the tuner's or the simulator's memory
// code, the largest per-rank peak of Chimera's table under the Fixed
// policy with the layers cut by part: rank r holds the weights, gradients
// and Adam state of both parts it runs, r on the down pipeline and P-1-r
// on the up one (arXiv 2107.06925, §3.1), each priced by the plain GPU
// model of the P parts (cost.GPUModel.StaticBytes), plus the most activation
// bytes its row holds at once: a forward of a stage keeps that part's
// cost.GPUModel.ActivationBytes until the backward of the same stage and
// microbatch (Chimera does not split backwards).
func chimeraFixedPeak(t *testing.T, cfg cost.GPUConfig, tab *pipeline.Table, part []int) float64 {
	t.Helper()
	p := tab.Ranks()
	g, err := cost.NewGPUModelPartition(cfg, part)
	if err != nil {
		t.Fatal(err)
	}
	partOf := func(s int) int { return s % p } // stages s and P+s run part s
	peak := 0.0
	for r, row := range tab.Rows {
		held, most := 0.0, 0.0
		for _, a := range row {
			switch a.Kind {
			case pipeline.Forward:
				held += g.ActivationBytes(partOf(a.Stage))
			case pipeline.Backward:
				held -= g.ActivationBytes(partOf(a.Stage))
			case pipeline.Bubble:
			default:
				t.Fatalf("rank %d: Chimera's row has a %v, not only F and B", r, a)
			}
			most = max(most, held)
		}
		peak = max(peak, g.StaticBytes(r)+g.StaticBytes(p-1-r)+most)
	}
	return peak
}

// TestChimeraMemoryCountsBothReplicas: the tuner's Chimera candidates, on
// a random tiny model on 4 ranks and on vlm-7b on 4 × H100 (whose search
// is local, C(59, 3) partitions), report the peak chimeraFixedPeak
// computes for their partition, both replicas' static bytes included, and
// the Fixed-policy memory floor is that peak too. Counting one replica
// per rank would come out lower by the static bytes of the other.
func TestChimeraMemoryCountsBothReplicas(t *testing.T) {
	tiny := tinyProblem(rand.New(rand.NewPCG(9, 1)), 4, 9)
	model, err := cost.LookupNetwork("vlm-7b")
	if err != nil {
		t.Fatal(err)
	}
	gpu, _ := cost.LookupGPU("h100")
	link, _ := cost.LookupLink("ib-ndr")
	vlm := Problem{Config: cost.GPUConfig{Network: model, GPU: gpu, Link: link, Microbatch: 1, Sequence: 2048},
		Ranks: 4, Microbatches: []int{8}, MemoryBytes: 1e15}
	for _, p := range []Problem{tiny, vlm} {
		p.Schedules = []Schedule{{"chimera", 1}}
		res, err := Tune(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Candidates) == 0 {
			t.Fatalf("%s: no Chimera candidate (skipped: %v)", p.Config.Network.Name, res.Skipped)
		}
		t.Logf("%s: %d simulations", p.Config.Network.Name, res.Simulations)
		for _, c := range res.Candidates {
			if c.Placement != "bidirectional" || len(c.Partition) != p.Ranks {
				t.Errorf("%s M=%d: placement %q, partition %v; want bidirectional, %d parts", p.Config.Network.Name, c.Microbatches, c.Placement, c.Partition, p.Ranks)
			}
			want := chimeraFixedPeak(t, p.Config, c.Table, c.Partition)
			if c.PeakMemory != want {
				t.Errorf("%s M=%d %v: peak %.17g, want both replicas' static bytes plus activations, %.17g", p.Config.Network.Name, c.Microbatches, c.Partition, c.PeakMemory, want)
			}
			g, err := cost.GPUForTablePartition(p.Config, c.Table, c.Partition)
			if err != nil {
				t.Fatal(err)
			}
			if floor := memoryFloor(c.Table, forwardStages(c.Table), true, g); floor != want {
				t.Errorf("%s M=%d %v: Fixed memory floor %.17g, want %.17g", p.Config.Network.Name, c.Microbatches, c.Partition, floor, want)
			}
		}
	}
}

// TestChimeraRefusalsAreSkipped: Chimera needs an even P and M a
// multiple of P (arXiv 2107.06925, §3.1: units of P microbatches, half
// on each pipeline). A refused shape is skipped with the generator's
// reason and the other schedules are still tuned; only when nothing could
// be generated does Tune fail, naming the reasons.
func TestChimeraRefusalsAreSkipped(t *testing.T) {
	src := rand.New(rand.NewPCG(4, 1))
	tests := []struct {
		name         string
		ranks        int
		microbatches []int
		wantSkipped  []string // one substring per skipped search, in order
		searched     []int    // the counts Chimera must be searched at
	}{
		{"odd P", 3, []int{3, 6}, []string{"even number of ranks", "even number of ranks"}, nil},
		{"M not a multiple of P", 2, []int{3, 4}, []string{"multiple of ranks"}, []int{4}},
		{"M below P", 4, []int{2, 4, 8}, []string{"multiple of ranks"}, []int{4, 8}},
	}
	for _, tt := range tests {
		p := tinyProblem(src, tt.ranks, 9)
		p.Microbatches = tt.microbatches
		p.Schedules = []Schedule{{"1f1b", 1}, {"chimera", 1}}
		res, err := Tune(p)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(res.Skipped) != len(tt.wantSkipped) {
			t.Errorf("%s: skipped %q, want %d reasons", tt.name, res.Skipped, len(tt.wantSkipped))
			continue
		}
		for i, want := range tt.wantSkipped {
			if !strings.HasPrefix(res.Skipped[i], "chimera with ") || !strings.Contains(res.Skipped[i], want) {
				t.Errorf("%s: skipped %q, want chimera's reason mentioning %q", tt.name, res.Skipped[i], want)
			}
		}
		var searched []int
		for _, c := range res.Candidates {
			if c.Schedule.Family == "chimera" {
				searched = append(searched, c.Microbatches)
			}
		}
		if !slices.Equal(searched, tt.searched) {
			t.Errorf("%s: Chimera searched at %v microbatches, want %v", tt.name, searched, tt.searched)
		}
	}
	p := tinyProblem(src, 3, 9)
	p.Schedules = []Schedule{{"chimera", 1}}
	if _, err := Tune(p); err == nil || !strings.Contains(err.Error(), "no schedule could be generated") || !strings.Contains(err.Error(), "even number of ranks") {
		t.Errorf("Chimera alone on 3 ranks: error %v, want no schedule, naming the even-ranks reason", err)
	}
}

// TestChimeraTableRejectsWrongPartition: the tuner prices Chimera with one
// entry per model part (P), not per stage (2P); the constructor names a
// partition of the wrong length and one that does not cover the layers.
func TestChimeraTableRejectsWrongPartition(t *testing.T) {
	p := tinyProblem(rand.New(rand.NewPCG(2, 1)), 2, 7)
	tab, err := pipeline.Generate("chimera", pipeline.Shape{Ranks: 2, Microbatches: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		part []int
		want string
	}{
		{[]int{2, 2, 2, 1}, "4 entries; the table's 4 stages on 2 routes run 2 model parts"},
		{[]int{3, 3}, "covers 6 layers; the model has 7"},
		{[]int{7, 0}, "gives stage 1 0 layers"},
	} {
		if _, err := cost.GPUForTablePartition(p.Config, tab, tt.part); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("partition %v: error %v, want one mentioning %q", tt.part, err, tt.want)
		}
	}
}
