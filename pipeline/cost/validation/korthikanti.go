package validation

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline/cost"
)

// korthikantiModel is one GPT of Table 5 of Korthikanti et al., "Reducing
// Activation Recomputation in Large Transformer Models" (MLSys 2023,
// arXiv 2205.05198): its configuration (the paper's Table 3) and the
// end-to-end iteration time in seconds it measured on A100s with full
// recomputation and with its method, selective recomputation and sequence
// parallelism.
//
// Source of every number: the Calculon repository (Isaev et al., SC23,
// github.com/calculon-ai/calculon), which validates against that table.
// The iteration times are calculon/megatron/validation.py's kProfile,
// commented there "These profiled values are reported here:
// https://arxiv.org/pdf/2205.05198.pdf" (Table 5); layers, hidden size
// and heads are examples/{22B,175B,530B,1T}.json; the tensor- and
// pipeline-parallel sizes, the GPUs, the batch and the microbatch are
// validation/{model}_{full,seqsel}.json, the same in both modes. The
// interleaved schedule's chunks (pipeline_interleaving 3 for 175B and
// 530B) are Calculon's choice in those files, not a figure of the paper.
// Sequence 2048 is Calculon's seq_size; the vocabulary, 51,200, is
// SC21's (Megatron-LM README.md), an assumption for these runs. Data
// parallelism is 1: no gradient reduction.
type korthikantiModel struct {
	name                  string
	layers, hidden, heads int
	tp, pp, gpus          int
	batch, microbatch     int
	layersPerVirtualStage int
	full, selective       float64 // seconds an iteration
}

var korthikantiModels = []korthikantiModel{
	{name: "22B", layers: 48, hidden: 6144, heads: 64, tp: 8, pp: 1, gpus: 8, batch: 4, microbatch: 4, full: 1.42, selective: 1.10},
	{name: "175B", layers: 96, hidden: 12288, heads: 96, tp: 8, pp: 8, gpus: 64, batch: 64, microbatch: 1, layersPerVirtualStage: 4, full: 18.13, selective: 13.75},
	{name: "530B", layers: 105, hidden: 20480, heads: 128, tp: 8, pp: 35, gpus: 280, batch: 280, microbatch: 1, layersPerVirtualStage: 1, full: 49.05, selective: 37.83},
	{name: "1T", layers: 128, hidden: 25600, heads: 160, tp: 8, pp: 64, gpus: 512, batch: 512, microbatch: 1, full: 94.42, selective: 71.49},
}

// run is the model as a Megatron-LM run under one recomputation mode:
// full recomputation without sequence parallelism, or the paper's
// selective recomputation with sequence parallelism.
func (m korthikantiModel) run(selective bool) sc21Run {
	r := sc21Run{name: m.name, layers: m.layers, hidden: m.hidden, heads: m.heads, tp: m.tp, pp: m.pp, gpus: m.gpus,
		batch: m.batch, microbatch: m.microbatch, layersPerVirtualStage: m.layersPerVirtualStage, recompute: cost.RecomputeFull}
	if selective {
		r.recompute, r.sequenceParallel = cost.RecomputeSelective, true
	}
	return r
}

// korthikantiRows predicts Table 5's iteration times with the cluster
// model calibrated on SC21's rows without pipeline parallelism (k): every
// row is out of sample.
func korthikantiRows(k clusterKnobs) ([]ValidationRow, error) {
	var rows []ValidationRow
	for _, m := range korthikantiModels {
		for _, mode := range []struct {
			selective bool
			what      string
			published float64
		}{{false, "iteration, full recomputation", m.full}, {true, "iteration, selective recomputation + sequence parallel", m.selective}} {
			r := m.run(mode.selective)
			it, err := r.iteration(k)
			if err != nil {
				return nil, fmt.Errorf("validation Korthikanti %s: %w", m.name, err)
			}
			sched := "1F1B"
			if v := r.chunks(); v > 1 {
				sched = fmt.Sprintf("interleaved, %d chunks", v)
			}
			config := fmt.Sprintf("%s (t %d, p %d, d %d)", m.name, m.tp, m.pp, r.data())
			note := fmt.Sprintf("b %d, m %d, %s", m.microbatch, r.microbatches(), sched)
			vr := row("korthikanti", config, mode.what, "s", mode.published, it, note)
			vr.Source = fmt.Sprintf("Korthikanti et al. 2022, Table 5, row %s (via Calculon)", m.name)
			rows = append(rows, vr)
		}
	}
	return rows, nil
}
