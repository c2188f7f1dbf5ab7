package tune

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// BaselineSchedules are Megatron-LM's pipeline schedules: 1F1B and
// interleaved 1F1B with two chunks per rank (Narayanan et al., SC21).
var BaselineSchedules = []Schedule{{"1f1b", 1}, {"interleaved-1f1b", 2}}

// baseline runs Megatron-LM's way with mbs microbatches: the layers split
// evenly by count (cost.EvenPartition: embedding with the first stage, head
// with the last) under each of BaselineSchedules, and keeps the faster,
// preferring one that fits.
func baseline(p Problem, layers []cost.Layer, mbs int) (*Candidate, int, error) {
	var best *Candidate
	sims := 0
	var reasons []error
	for _, sc := range BaselineSchedules {
		t, err := pipeline.Generate(sc.Family, pipeline.Shape{Ranks: p.Ranks, Microbatches: mbs, Chunks: sc.Chunks})
		if err != nil {
			reasons = append(reasons, err)
			continue
		}
		part, err := cost.EvenPartition(layers, t.Stages())
		if err != nil {
			reasons = append(reasons, err)
			continue
		}
		c, err := simulate(p, t, sc, part)
		if err != nil {
			return nil, sims, err
		}
		sims++
		if better(c, best) {
			best = c
		}
	}
	if best == nil {
		return nil, sims, fmt.Errorf("tune: no Megatron-LM baseline for %d ranks and %d microbatches: %v", p.Ranks, mbs, reasons)
	}
	return best, sims, nil
}
