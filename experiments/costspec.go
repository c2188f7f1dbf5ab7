package experiments

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// Cost models a CostSpec names beyond unit and gpu; only Go callers (the
// command line) set them, a spec has no key for their times.
const (
	ExplicitCost = "explicit"
	MeasuredCost = "measured"
)

// Model returns the cost model of c for table t: the one place a cost spec
// becomes a cost.Model. Unit time is cost.Unit; the GPU model cuts the
// model's layers evenly over t's model parts (cost.GPUForTable, which for
// a table of one stage per rank is cost.NewGPUModel with its stage count).
func (c CostSpec) Model(t *pipeline.Table) (cost.Model, error) {
	switch c.CostModel {
	case "", "unit":
		return cost.Unit{}, nil
	case ExplicitCost:
		e := c.Explicit
		return cost.ForRankShare(t, cost.Stage{TF: e.Fwd, TB: e.Bwd, TW: e.WGrad}, e.Comm), nil
	case MeasuredCost:
		if c.Measured == nil {
			return nil, fmt.Errorf("measured costs without measurements")
		}
		return c.Measured.ForTable(t)
	case "gpu":
		cfg, err := c.GPUConfig()
		if err != nil {
			return nil, err
		}
		gm, err := cost.GPUForTable(cfg, t)
		if err != nil {
			return nil, fmt.Errorf("%d stages of %s: %w", t.Stages(), c.modelLabel(), err)
		}
		return gm, nil
	}
	return nil, fmt.Errorf("unknown cost model %q", c.CostModel)
}

// unitTime reports whether c is unit time.
func (c CostSpec) unitTime() bool { return c.desc().Unit }
