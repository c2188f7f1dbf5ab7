package main

import (
	"errors"
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/tune"
)

// The Zero Bubble paper's automatic schedule (--kind zb-auto) is built
// from costs, not from a shape alone, so the commands that take a kind
// build it here from the cost flags in force.

// wgradMemoryUsage is --wgrad-memory's help. The name pairs it with
// --wgrad (T_W): the same weight gradient, its memory beside its time.
const wgradMemoryUsage = "zb-auto with explicit or unit costs: the activations M_W a microbatch's W still needs after its I, as a fraction of M_B in (0, 1] (the Zero Bubble paper's M_W/M_B); 1 (the default) counts a microbatch whole until its W"

const zbAutoSummary = "zero bubble automatic schedule (arXiv 2401.10241, §3): built from the costs in force, Ws placed in the bubbles they leave, within --max-activations (default P)"

// generateFor builds the flags' schedule; zb-auto is built from the cost
// flags, every other family from the shape alone. zb-auto's building and
// the command's work on its table are guarded together.
func (s *shapeFlags) generateFor(costs *costFlags) (*pipeline.Table, error) {
	if s.kind != tune.ZBAutoFamily {
		return s.generate()
	}
	if s.cellBytes > 0 {
		if err := guardShape(s.kind, pipeline.Shape{Ranks: s.ranks, Microbatches: s.microbatches}, s.cellBytes); err != nil {
			return nil, err
		}
	}
	return zbAutoTable(s.ranks, s.microbatches, s.chunks, zbAutoLimits{s.maxActivations, s.wgradMemory}, costs)
}

// zbAutoLimits are zb-auto's memory settings: --max-activations (0 for
// P) and --wgrad-memory (0 for the cost model's own M_W / M_B, 1 without
// a memory model).
type zbAutoLimits struct {
	maxActivations int
	wgradMemory    float64
}

// checkMaxActivations refuses --max-activations and --wgrad-memory where
// they mean nothing.
func (s *shapeFlags) checkMaxActivations(set map[string]bool) error {
	switch {
	case set["max-activations"] && s.kind != tune.ZBAutoFamily:
		return fmt.Errorf("--max-activations applies to --kind zb-auto only")
	case s.maxActivations < 0:
		return fmt.Errorf("--max-activations must be at least 1 (0 for P), got %d", s.maxActivations)
	case set["wgrad-memory"] && s.kind != tune.ZBAutoFamily:
		return fmt.Errorf("--wgrad-memory applies to --kind zb-auto only")
	}
	return checkWgradMemory(s.wgradMemory, set["wgrad-memory"])
}

// errWgradMemoryGPU refuses --wgrad-memory beside the GPU model, whose
// memory model has an M_W of its own (cost.WeightGradMemory).
var errWgradMemoryGPU = errors.New("--wgrad-memory: the GPU model (--model) prices M_W itself; give --wgrad-memory with explicit (--fwd ...) or unit costs")

// checkWgradMemory refuses a share M_W / M_B outside (0, 1].
func checkWgradMemory(share float64, set bool) error {
	if set && !(share > 0 && share <= 1) {
		return fmt.Errorf("--wgrad-memory is M_W as a fraction of M_B and must be in (0, 1], got %g", share)
	}
	return nil
}

// zbAutoTable builds zb-auto for P ranks and M microbatches from the costs
// the flags put in force: explicit times, the GPU model (whose M_W / M_B
// makes the limit one in M_B, as the paper sets it), or unit times for
// --cost-model unit and lockstep.
func zbAutoTable(p, m, chunks int, limits zbAutoLimits, costs *costFlags) (*pipeline.Table, error) {
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
	if k := costs.kind(); k == "explicit" || k == "gpu" {
		pr, err := costs.pricingFor(shape)
		if err != nil {
			return nil, err
		}
		model, mem = pr.cost, pr.memory
	}
	share := tune.WeightGradShareOf(mem, p)
	if limits.wgradMemory > 0 {
		if mem != nil {
			return nil, badInput{fmt.Errorf("%s: %w", where, errWgradMemoryGPU)}
		}
		share = limits.wgradMemory
	}
	s, err := tune.ZBAuto(tune.ZBAutoProblem{
		Stages: tune.StageTimesOf(model, p), Microbatches: m, MaxActivations: limits.maxActivations,
		WeightGradShare: share,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return s.Table, nil
}

// checkZBAuto refuses cost flags and --max-activations for a family that
// does not take them (schedule prints a shape's table otherwise).
func (f *scheduleFlags) checkZBAuto() error {
	if err := f.checkMaxActivations(f.set); err != nil {
		return err
	}
	if f.kind == tune.ZBAutoFamily {
		return f.costs.check()
	}
	for _, name := range []string{"cost-model", "fwd", "bwd", "wgrad", "comm", "model", "gpu", "link", "microbatch-size", "seq-len", "flash-attention"} {
		if f.set[name] {
			return fmt.Errorf("--%s: cost flags apply to --kind zb-auto only, the schedule built from costs", name)
		}
	}
	return nil
}

// withMaxActivations gives compare's zb-auto items the limit, and refuses
// a limit given without one.
func withMaxActivations(families []compareFamily, limit int, set bool) error {
	has := false
	for i := range families {
		if families[i].name == tune.ZBAutoFamily {
			families[i].maxActivations, has = limit, true
		}
	}
	switch {
	case set && !has:
		return fmt.Errorf("--max-activations applies to zb-auto only, which --kind does not list")
	case limit < 0:
		return fmt.Errorf("--max-activations must be at least 1 (0 for P), got %d", limit)
	}
	return nil
}

// withWgradMemory gives compare's zb-auto items --wgrad-memory, and
// refuses it without a zb-auto item or out of range.
func withWgradMemory(families []compareFamily, share float64, costs *costFlags) error {
	set := costs.set["wgrad-memory"]
	if err := checkWgradMemory(share, set); err != nil {
		return err
	}
	if set && costs.kind() == "gpu" {
		return errWgradMemoryGPU
	}
	has := false
	for i := range families {
		if families[i].name == tune.ZBAutoFamily {
			families[i].wgradMemory, has = share, true
		}
	}
	if set && !has {
		return fmt.Errorf("--wgrad-memory applies to zb-auto only, which --kind does not list")
	}
	return nil
}

// generate builds one of compare's families: zb-auto from the costs.
func (fam compareFamily) generate(sh pipeline.Shape, costs *costFlags) (*pipeline.Table, error) {
	if fam.name == tune.ZBAutoFamily {
		return zbAutoTable(sh.Ranks, sh.Microbatches, sh.Chunks, zbAutoLimits{fam.maxActivations, fam.wgradMemory}, costs)
	}
	return pipeline.Generate(fam.name, sh)
}
