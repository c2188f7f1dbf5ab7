package cost

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
)

// ModelParts returns the part of the model each stage of t runs, and how
// many parts the model is cut into. Stage s runs part s, except in a table
// with Routes (Chimera's two pipelines on replicated weights), where a
// stage runs the part at its position along its route.
func ModelParts(t *pipeline.Table) (part []int, parts int) {
	part = make([]int, t.Stages())
	for s := range part {
		part[s] = s
	}
	if t.Routes == nil {
		return part, t.Stages()
	}
	for _, rt := range t.Routes {
		for s := rt.First; s <= rt.Last; s++ {
			part[s] = s - rt.First
			parts = max(parts, s-rt.First+1)
		}
	}
	return part, parts
}

// ForRankShare returns uniform explicit costs for t from the times of one
// rank's share of the model (the T_F, T_B, T_W of the closed forms): a
// table that cuts the model into more parts than it has ranks spends a
// proportional share per action (T/V with V chunks per rank). comm is the
// time of one transfer.
func ForRankShare(t *pipeline.Table, share Stage, comm float64) Explicit {
	_, parts := ModelParts(t)
	f := float64(t.Ranks()) / float64(parts)
	return Explicit{TF: share.TF * f, TB: share.TB * f, TW: share.TW * f, Comm: comm}
}

// StageModel prices compute, transfers, memory and message sizes, as the
// GPU timing model does.
type StageModel interface {
	Model
	Memory
	MessageSizer
}

// GPUForTable builds the GPU timing model for table t: the model's layers
// cut over t's model parts (ModelParts) as NewGPUModel cuts them
// (EvenPartition), each stage priced as the part it runs. It is
// GPUForTablePartition with that even cut.
func GPUForTable(cfg GPUConfig, t *pipeline.Table) (StageModel, error) {
	layers, err := cfg.Layers()
	if err != nil {
		return nil, err
	}
	_, parts := ModelParts(t)
	even, err := EvenPartition(layers, parts)
	if err != nil {
		return nil, err
	}
	return gpuForTable(cfg, t, layers, even)
}

// GPUForTablePartition builds the GPU timing model for table t with
// partition[p] layers, in model order, on model part p (ModelParts): on
// stage p of a table without Routes, and on every stage that replicates
// part p in one with Routes (Chimera's stages p and P+p), so that a rank
// holding two replicas holds the weights of both. The partition must have
// one entry per model part, each at least one layer, and cover the
// model's layers.
func GPUForTablePartition(cfg GPUConfig, t *pipeline.Table, partition []int) (StageModel, error) {
	layers, err := cfg.Layers()
	if err != nil {
		return nil, err
	}
	return gpuForTable(cfg, t, layers, partition)
}

// gpuForTable is GPUForTablePartition with the model's layers at hand.
func gpuForTable(cfg GPUConfig, t *pipeline.Table, layers []Layer, partition []int) (StageModel, error) {
	part, parts := ModelParts(t)
	if len(partition) != parts {
		what := fmt.Sprintf("%d stages", t.Stages())
		if t.Routes != nil {
			what = fmt.Sprintf("%d stages on %d routes", t.Stages(), len(t.Routes))
		}
		return nil, fmt.Errorf("cost: model %s: partition %v has %d entries; the table's %s run %d model parts, one entry each",
			cfg.Network.Name, partition, len(partition), what, parts)
	}
	g, err := newGPUModel(cfg, layers, partition)
	if err != nil {
		return nil, err
	}
	if t.Routes == nil {
		return g, nil
	}
	return replicated{g: g, part: part}, nil
}

// Both GPU stage models know M_W.
var (
	_ WeightGradMemory = (*GPUModel)(nil)
	_ WeightGradMemory = replicated{}
)

// replicated prices the stages of a table whose stages replicate model
// parts with the model of the parts.
type replicated struct {
	g    *GPUModel
	part []int
}

// onPart renames the stages of a to the parts they run; stages outside the
// table are left for the GPU model to refuse.
func (m replicated) onPart(a pipeline.Action) pipeline.Action {
	if a.Stage >= 0 && a.Stage < len(m.part) {
		a.Stage = m.part[a.Stage]
	}
	if a.Kind == pipeline.OverlapFB && a.BackStage >= 0 && a.BackStage < len(m.part) {
		a.BackStage = m.part[a.BackStage]
	}
	return a
}

func (m replicated) stage(s int) int {
	if s >= 0 && s < len(m.part) {
		return m.part[s]
	}
	return -1
}

func (m replicated) Compute(a pipeline.Action) float64 { return m.g.Compute(m.onPart(a)) }

func (m replicated) Transfer(a pipeline.Action, from, to int) float64 {
	return m.g.Transfer(m.onPart(a), from, to)
}

func (m replicated) MessageBytes(a pipeline.Action) float64 { return m.g.MessageBytes(m.onPart(a)) }

func (m replicated) ActivationBytes(s int) float64 { return m.g.ActivationBytes(m.stage(s)) }

func (m replicated) StaticBytes(s int) float64 { return m.g.StaticBytes(m.stage(s)) }

func (m replicated) WeightGradBytes(s int) float64 { return m.g.WeightGradBytes(m.stage(s)) }
