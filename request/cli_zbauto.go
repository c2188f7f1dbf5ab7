package request

import (
	"errors"
	"fmt"
	"github.com/pipelab/pipelab/fault"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/tune"
)

// The Zero Bubble paper's automatic schedule (--kind zb-auto) is built
// from costs, not from a shape alone, so the commands that take a kind
// build it here from the cost flags in force.

// WgradMemoryUsage is --wgrad-memory's help. The name pairs it with
// --wgrad (T_W): the same weight gradient, its memory beside its time.
const WgradMemoryUsage = "zb-auto with explicit or unit costs: the activations M_W a microbatch's W still needs after its I, as a fraction of M_B in (0, 1] (the Zero Bubble paper's M_W/M_B); 1 (the default) counts a microbatch whole until its W"

const ZBAutoSummary = "zero bubble automatic schedule (arXiv 2401.10241, §3): built from the costs in force, Ws placed in the bubbles they leave, within --max-activations (default P)"

// generateFor builds the flags' schedule; zb-auto is built from the cost
// flags, every other family from the shape alone. zb-auto's building and
// the command's work on its table are guarded together.
func (s *ShapeFlags) GenerateFor(costs *CostFlags) (*pipeline.Table, error) {
	if s.Kind != tune.ZBAutoFamily {
		return s.Generate()
	}
	if s.CellBytes > 0 {
		if err := GuardShape(s.Kind, pipeline.Shape{Ranks: s.Ranks, Microbatches: s.Microbatches}, s.CellBytes); err != nil {
			return nil, err
		}
	}
	return ZBAutoTable(s.Ranks, s.Microbatches, s.Chunks, ZBAutoLimits{MaxActivations: s.MaxActivations, WgradMemory: s.WgradMemory, BySpan: s.ZBBySpan}, costs)
}

// ZBAutoLimits are zb-auto's settings: its memory, --max-activations (0
// for P) and --wgrad-memory (0 for the cost model's own M_W / M_B, 1
// without a memory model), and how it chooses among its candidates.
type ZBAutoLimits struct {
	MaxActivations int
	WgradMemory    float64
	// BySpan chooses the schedule by its longest rank span
	// (tune.ZBAutoProblem.BySpan), as simulate --post-validation times it.
	BySpan bool
}

// checkMaxActivations refuses --max-activations and --wgrad-memory where
// they mean nothing.
func (s *ShapeFlags) CheckMaxActivations(set map[string]bool) error {
	switch {
	case set["max-activations"] && s.Kind != tune.ZBAutoFamily:
		return fmt.Errorf("--max-activations applies to --kind zb-auto only")
	case s.MaxActivations < 0:
		return fmt.Errorf("--max-activations must be at least 1 (0 for P), got %d", s.MaxActivations)
	case set["wgrad-memory"] && s.Kind != tune.ZBAutoFamily:
		return fmt.Errorf("--wgrad-memory applies to --kind zb-auto only")
	}
	return CheckWgradMemory(s.WgradMemory, set["wgrad-memory"])
}

// ErrWgradMemoryGPU refuses --wgrad-memory beside the GPU model, whose
// memory model has an M_W of its own (cost.WeightGradMemory).
var ErrWgradMemoryGPU = errors.New("--wgrad-memory: the GPU model (--model) prices M_W itself; give --wgrad-memory with explicit (--fwd ...) or unit costs")

// CheckWgradMemory refuses a share M_W / M_B outside (0, 1].
func CheckWgradMemory(share float64, set bool) error {
	if set && !(share > 0 && share <= 1) {
		return fmt.Errorf("--wgrad-memory is M_W as a fraction of M_B and must be in (0, 1], got %g", share)
	}
	return nil
}

// ZBAutoTable builds zb-auto for P ranks and M microbatches from the costs
// the flags put in force: explicit times, the GPU model (whose M_W / M_B
// makes the limit one in M_B, as the paper sets it), or unit times for
// --cost-model unit and lockstep.
func ZBAutoTable(p, m, chunks int, limits ZBAutoLimits, costs *CostFlags) (*pipeline.Table, error) {
	where := fmt.Sprintf("--kind zb-auto --ranks %d --microbatches %d", p, m)
	if chunks > 1 {
		return nil, fmt.Errorf("%s: the automatic schedule places one stage per rank, so --chunks must be 1, got %d", where, chunks)
	}
	shape, err := pipeline.Generate("zb-h1", pipeline.Shape{Ranks: p, Microbatches: m})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	var model cost.Model = cost.Unit{}
	var mem cost.Memory
	if k := costs.Kind(); k == "explicit" || k == "gpu" {
		pr, err := costs.PricingFor(shape)
		if err != nil {
			return nil, err
		}
		model, mem = pr.Cost, pr.Memory
	}
	share := tune.WeightGradShareOf(mem, p)
	if limits.WgradMemory > 0 {
		if mem != nil {
			return nil, fault.Bad(fmt.Errorf("%s: %w", where, ErrWgradMemoryGPU))
		}
		share = limits.WgradMemory
	}
	s, err := tune.ZBAuto(tune.ZBAutoProblem{
		Stages: tune.StageTimesOf(model, p), Microbatches: m, MaxActivations: limits.MaxActivations,
		WeightGradShare: share, BySpan: limits.BySpan,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return s.Table, nil
}

// checkZBAuto refuses cost flags and --max-activations for a family that
// does not take them (schedule prints a shape's table otherwise).
func (f *scheduleFlags) checkZBAuto() error {
	if err := f.CheckMaxActivations(f.set); err != nil {
		return err
	}
	if f.Kind == tune.ZBAutoFamily {
		return f.costs.Check()
	}
	for _, name := range []string{"cost-model", "fwd", "bwd", "wgrad", "comm", "model", "gpu", "link", "microbatch-size", "seq-len", "flash-attention"} {
		if f.set[name] {
			return fmt.Errorf("--%s: cost flags apply to --kind zb-auto only, the schedule built from costs", name)
		}
	}
	return nil
}
