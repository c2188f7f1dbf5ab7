package cost

import (
	"slices"

	"github.com/pipelab/pipelab/pipeline"
)

// A rank's share of the model is what the closed forms time (T_F, T_B,
// T_W of docs/reference.md §2): the model cut into as many parts as there
// are ranks. The three functions below are the one definition of it, for
// pipelab compare, simulate and the schedules measure alike.

// UnitShare is what unit time makes of one rank's share of t's model: one
// step per model part for each of F and B (or I), and W when t splits its
// backwards, times the parts per rank V (Chimera's two pipelines cut the
// model into P parts, so V = 1 there).
func UnitShare(t *pipeline.Table) Stage {
	_, parts := ModelParts(t)
	v := float64(parts) / float64(t.Ranks())
	share := Stage{TF: v, TB: v}
	for _, row := range t.Rows {
		if slices.ContainsFunc(row, func(a pipeline.Action) bool { return a.Kind == pipeline.BackwardWeight }) {
			share.TW = v
			break
		}
	}
	return share
}

// MeanShare is one rank's mean share of the GPU times, the model cut
// evenly into as many stages as there are ranks: the closed forms assume
// uniform ranks, and the simulated level shows what the uneven stages
// (embedding, head) cost.
func MeanShare(cfg GPUConfig, ranks int) (Stage, error) {
	whole, err := NewGPUModel(cfg, ranks)
	if err != nil {
		return Stage{}, err
	}
	var share Stage
	p := float64(ranks)
	for r := range ranks {
		st := whole.Stage(r)
		share.TF += st.TF / p
		share.TB += st.TB / p
		share.TW += st.TW / p
	}
	return share, nil
}

// ChunksPerRank is the number of model parts per rank of t, V: its stages
// per rank, except Chimera's, whose two pipelines each run one part per
// rank.
func ChunksPerRank(t *pipeline.Table) int {
	_, parts := ModelParts(t)
	return parts / t.Ranks()
}

// StageShare is the part of a rank's share of the model one stage of t
// holds: 1/V for V parts per rank, 1 for each of Chimera's replicas. A
// count of stage activations times it is in M_B, microbatches of a rank's
// activations, the unit of peak activations wherever pipelab prints them.
func StageShare(t *pipeline.Table) float64 {
	_, parts := ModelParts(t)
	return float64(t.Ranks()) / float64(parts)
}
