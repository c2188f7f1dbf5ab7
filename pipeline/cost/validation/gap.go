package validation

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// actionGap is a cost model whose every action takes a fixed gap more
// than the model's: the time a training runtime spends between two
// actions of a rank that the GPU does not overlap. Megatron-LM's
// schedules synchronise the device after each batched send and receive
// (batch_p2p_sync), so the host's next launches are not queued ahead of
// the GPU; the Zero Bubble runtime's fused sends and receives do not, yet
// its rows fit only with the same gap (docs/validation.md, Set-up), so
// the mechanism is not pinned.
type actionGap struct {
	cost.Model
	gap float64
}

// Compute is the model's time of a plus the gap.
func (g actionGap) Compute(a pipeline.Action) float64 { return g.Model.Compute(a) + g.gap }

// gapRow is the throughput row the gap is calibrated on: 1F1B with the
// paper's own Appendix D profile, where the simulated schedule and the
// measured stage costs leave the gap as the one thing the model lacks.
const gapRow = "1F1B, m 24, Appendix D costs"

// calibrateGap sets the action gap, in seconds, on the setup's gapRow:
// the gap at which the predicted throughput equals the published one. The
// throughput falls as the gap grows, so it is found by bisection between
// no gap and 10 ms, to a nanosecond.
func (s zbSetup) calibrateGap(hw cost.Hardware, k clusterKnobs) (float64, error) {
	excess := func(gap float64) (float64, error) {
		rows, err := s.rows(hw, k, gap)
		if err != nil {
			return 0, err
		}
		for _, r := range rows {
			if r.Quantity == gapRow {
				return r.Predicted - r.Published, nil
			}
		}
		return 0, fmt.Errorf("validation %s: no row %q to calibrate the action gap on", s.name, gapRow)
	}
	lo, hi := 0.0, 0.010
	e, err := excess(lo)
	if err != nil {
		return 0, err
	}
	if e <= 0 {
		return 0, fmt.Errorf("validation %s: %s is not above the published throughput without a gap (%+.3g): no gap to calibrate", s.name, gapRow, e)
	}
	if e, err = excess(hi); err != nil || e > 0 {
		return 0, fmt.Errorf("validation %s: no action gap up to %g s brings %s down to the published throughput (%v)", s.name, hi, gapRow, err)
	}
	for hi-lo > 1e-9 {
		mid := (lo + hi) / 2
		e, err := excess(mid)
		if err != nil {
			return 0, err
		}
		if e > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, nil
}
