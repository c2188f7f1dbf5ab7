package tune

import (
	"fmt"
	"slices"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// Schedule is a schedule family with its number of stages (chunks) per
// rank; the family decides the placement of the stages.
type Schedule struct {
	Family string
	Chunks int
}

func (s Schedule) String() string {
	if s.Chunks <= 1 {
		return s.Family
	}
	return fmt.Sprintf("%s×%d", s.Family, s.Chunks)
}

// DefaultSchedules are the synchronous (flush) families the tuner tries
// when a Problem names none: one stage per rank, interleaved in loop
// placement with 2 and 4 chunks (and Megatron-LM's combined 1F1B with 2),
// V-shaped (ZB-V, V-Half, V-Min and
// DualPipeV, which needs M >= 2P and skips smaller counts), the two
// pipelines of Chimera and DualPipe (one stage per rank in each: the layers
// are cut into P parts, each replicated on two ranks, cost.ModelParts;
// Chimera needs an even P and M a multiple of P, DualPipe an even P and an
// even M >= 2P, and other shapes are skipped with the generator's reason),
// and the Zero Bubble paper's automatic schedule (zb-auto, built
// for each partition from its costs within the memory limit, see
// search.tableFor). The asynchronous families are left out because they
// change the optimizer, not only the time.
var DefaultSchedules = []Schedule{
	{"gpipe", 1}, {"1f1b", 1}, {"zb-h1", 1}, {"zb-h2", 1}, {ZBAutoFamily, 1},
	{"interleaved-1f1b", 2}, {"interleaved-1f1b", 4}, {"combined-1f1b", 2}, {"looped-bfs", 2},
	{"interleaved-zb", 2}, {"zb-v", 2}, {"dualpipev", 2}, {"v-half", 2}, {"v-min", 2}, {"hanayo", 2},
	{"chimera", 1}, {"dualpipe", 1},
}

// Problem is what to tune: a model on GPUs joined by a link, in a
// pipeline of Ranks ranks.
type Problem struct {
	// Config is the model, GPU, link and microbatch (b samples of s
	// tokens) the GPU timing model prices.
	Config cost.GPUConfig
	// Ranks is the pipeline depth P.
	Ranks int
	// Microbatches lists the microbatch counts to try; empty means P, 2P
	// and 4P. Time per sample falls as the count grows, so the largest
	// count that fits wins: give one count to keep the batch fixed.
	Microbatches []int
	// MemoryBytes is the limit on any rank's peak (weights, gradients,
	// optimizer state and the activations it holds at once); 0 means the
	// GPU's memory.
	MemoryBytes float64
	// Schedules lists the schedules to try; empty means DefaultSchedules.
	Schedules []Schedule
	// Sim configures the simulations (policy, variability); its Context,
	// when done, ends the search with its error.
	Sim sim.Options
	// Exhaustive is the number of partitions of a schedule up to which
	// the tuner simulates every contiguous partition instead of searching
	// locally; 0 means DefaultExhaustive, a negative value never.
	Exhaustive int
	// PostValidation times every candidate as a runtime whose iterations
	// overlap does (the Zero Bubble runtime's optimizer post-validation):
	// an iteration takes the longest rank span, first compute start to
	// last compute end (sim.RankSpans), not the makespan, so PerSample is
	// that span over the samples, and zb-auto chooses by the span
	// (ZBAutoProblem.BySpan).
	PostValidation bool

	// simulateAll turns off the memory pruning: every partition searched
	// is simulated, even one whose memoryFloor exceeds the limit. The
	// tests use it to show that pruning does not change the choice.
	simulateAll bool
}

// DefaultExhaustive is Problem.Exhaustive's default: small enough that
// enumerating costs about what a local search does.
const DefaultExhaustive = 300

// withDefaults fills in the defaults and checks the problem.
func (p Problem) withDefaults() (Problem, []cost.Layer, error) {
	if p.Ranks < 1 {
		return p, nil, fmt.Errorf("tune: ranks %d must be at least 1", p.Ranks)
	}
	layers, err := p.Config.Layers()
	if err != nil {
		return p, nil, fmt.Errorf("tune: %w", err)
	}
	if len(layers) < p.Ranks {
		return p, nil, fmt.Errorf("tune: model %s has %d layers, fewer than the %d ranks", p.Config.Network.Name, len(layers), p.Ranks)
	}
	if len(p.Microbatches) == 0 {
		p.Microbatches = []int{p.Ranks, 2 * p.Ranks, 4 * p.Ranks}
	}
	for _, m := range p.Microbatches {
		if m < 1 {
			return p, nil, fmt.Errorf("tune: microbatch count %d must be at least 1", m)
		}
	}
	if p.MemoryBytes == 0 {
		p.MemoryBytes = p.Config.GPU.MemoryBytes
	}
	if p.MemoryBytes < 0 {
		return p, nil, fmt.Errorf("tune: memory limit %g bytes is negative", p.MemoryBytes)
	}
	if len(p.Schedules) == 0 {
		p.Schedules = DefaultSchedules
	}
	if p.Exhaustive == 0 {
		p.Exhaustive = DefaultExhaustive
	}
	return p, layers, nil
}

// layerSeconds returns each layer's compute time for one microbatch:
// forward, input-gradient and weight-gradient FLOPs at the achieved
// throughput.
func layerSeconds(c cost.GPUConfig, layers []cost.Layer) []float64 {
	rate := c.Throughput()
	out := make([]float64, len(layers))
	for i, l := range layers {
		out[i] = (l.Forward + l.BackwardInput + l.BackwardWeight) / rate
	}
	return out
}

// placementName names a table's stage→rank map; a table with Routes is
// "bidirectional" (Chimera's map is the V one, but its second half
// replicates the first rather than continuing it).
func placementName(t *pipeline.Table) string {
	switch {
	case t.Routes != nil:
		return "bidirectional"
	case slices.Equal(t.Placement, pipeline.LoopPlacement(t.Stages(), t.Ranks())):
		return "loop"
	case slices.Equal(t.Placement, pipeline.VPlacement(t.Stages(), t.Ranks())):
		return "v"
	}
	return "custom"
}
