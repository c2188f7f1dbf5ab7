package request

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/tune"
)

// withMaxActivations gives compare's zb-auto items the limit, and refuses
// a limit given without one.
func withMaxActivations(families []CompareFamily, limit int, set bool) error {
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
func withWgradMemory(families []CompareFamily, share float64, costs *CostFlags) error {
	set := costs.Set["wgrad-memory"]
	if err := CheckWgradMemory(share, set); err != nil {
		return err
	}
	if set && costs.Kind() == "gpu" {
		return ErrWgradMemoryGPU
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
func (fam CompareFamily) generate(sh pipeline.Shape, costs *CostFlags) (*pipeline.Table, error) {
	if fam.name == tune.ZBAutoFamily {
		return ZBAutoTable(sh.Ranks, sh.Microbatches, sh.Chunks, ZBAutoLimits{MaxActivations: fam.maxActivations, WgradMemory: fam.wgradMemory}, costs)
	}
	return pipeline.Generate(fam.name, sh)
}
