package validation

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// korthikantiModel is one GPT of Table 5 of Korthikanti et al., "Reducing
// Activation Recomputation in Large Transformer Models" (MLSys 2023,
// arXiv 2205.05198): its configuration (the paper's Table 3: heads,
// hidden size, layers, tensor- and pipeline-parallel sizes, GPUs, global
// and micro batch) and the end-to-end iteration time in seconds it
// measured with full recomputation and with its method, selective
// recomputation and sequence parallelism. §6 adds: the interleaved
// schedule with three chunks for 175B and 530B, sequence 2048, vocabulary
// 51,200, no data parallelism, mixed precision on Selene (DGX A100 80GB,
// NVLink and NVSwitch, eight 200 Gb/s HDR InfiniBand HCAs a node).
//
// The tables were read from a Markdown conversion of the paper in a public
// repository; the Calculon repository (Isaev et al., SC23,
// github.com/calculon-ai/calculon) transcribes the same times
// (calculon/megatron/validation.py, kProfile) and configurations
// (examples/{22B,175B,530B,1T}.json, validation/{model}_{full,seqsel}.json)
// for its own validation. Megatron-LM's runs of 2022 overlap the backward's
// tensor-parallel all-reduce with the weight gradients (§6.2), so these
// runs set cost.Parallelism.AsyncTensorAllReduce, SC21's do not.
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

// korthikantiScaled is the 530B run of §6.3 scaled to 8-way data
// parallelism, 2,240 GPUs, the batch per model instance kept (2,240): an
// iteration takes 39.15 s with the paper's method (MFU 54.2%, the
// abstract's figure), the gradient all-reduce not overlapped with the
// backward. The abstract's 42.1% MFU with full recomputation at this size
// comes without an iteration time or a batch, so full is 0: no row.
var korthikantiScaled = korthikantiModel{name: "530B", layers: 105, hidden: 20480, heads: 128, tp: 8, pp: 35, gpus: 2240,
	batch: 2240, microbatch: 1, layersPerVirtualStage: 1, selective: 39.15}

// run is the model as a Megatron-LM run under one recomputation mode:
// full recomputation without sequence parallelism, or the paper's
// selective recomputation with sequence parallelism.
func (m korthikantiModel) run(selective bool) sc21Run {
	r := sc21Run{name: m.name, layers: m.layers, hidden: m.hidden, heads: m.heads, tp: m.tp, pp: m.pp, gpus: m.gpus,
		batch: m.batch, microbatch: m.microbatch, layersPerVirtualStage: m.layersPerVirtualStage, recompute: cost.RecomputeFull,
		asyncTensorAllReduce: true}
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
	for _, m := range append(korthikantiModels[:len(korthikantiModels):len(korthikantiModels)], korthikantiScaled) {
		for _, mode := range []struct {
			selective bool
			what      string
			published float64
		}{{false, "iteration, full recomputation", m.full}, {true, "iteration, selective recomputation + sequence parallel", m.selective}} {
			if mode.published == 0 {
				continue
			}
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
			vr.Source = fmt.Sprintf("Korthikanti et al. 2022, Table 5, row %s", m.name)
			if r.data() > 1 {
				vr.Source = fmt.Sprintf("Korthikanti et al. 2022, §6.3, %s at 8-way data parallelism", m.name)
			}
			rows = append(rows, vr)
		}
	}
	return rows, nil
}

// korthikantiLayerTimes is Table 4 of Korthikanti et al. (read as Table 5
// above; Calculon does not carry it): the forward and
// the backward (input and weight gradients, and what is recomputed) of
// one transformer layer of the 22B (Table 3: t 8, microbatch 4, sequence
// 2048), in ms, under each recomputation setting.
var korthikantiLayerTimes = []struct {
	setting          string
	recompute        cost.Recompute
	sequenceParallel bool
	forward, back    float64
}{
	{"no recomputation", cost.RecomputeNone, false, 7.7, 11.9},
	{"sequence parallel", cost.RecomputeNone, true, 7.2, 11.8},
	{"full recomputation", cost.RecomputeFull, false, 7.7, 19.5},
	{"selective recomputation", cost.RecomputeSelective, false, 7.7, 13.2},
	{"selective recomputation + sequence parallel", cost.RecomputeSelective, true, 7.2, 13.1},
}

// korthikantiLayerRows predicts Table 4 with the cluster model's knobs:
// one transformer layer of the 22B priced on one GPU of its t = 8, F for
// the forward and B + W for the backward. All out of sample.
func korthikantiLayerRows(k clusterKnobs) ([]ValidationRow, error) {
	m := korthikantiModels[0]
	var rows []ValidationRow
	for _, c := range korthikantiLayerTimes {
		r := m.run(false)
		r.recompute, r.sequenceParallel = c.recompute, c.sequenceParallel
		cfg, err := r.config(k)
		if err != nil {
			return nil, err
		}
		cfg.Network = cost.Network{Name: "gpt-22B-layer", Source: "Korthikanti et al., Table 3", Blocks: []cost.Block{
			{Kind: cost.Decoder, Count: 1, Hidden: m.hidden, Heads: m.heads, FFN: 4 * m.hidden, Bias: true}}}
		g, err := cost.NewGPUModelPartition(cfg, []int{1})
		if err != nil {
			return nil, fmt.Errorf("validation Korthikanti Table 4: %w", err)
		}
		st := g.Stage(0)
		back := g.Compute(pipeline.Action{Kind: pipeline.Backward, Stage: 0})
		config := fmt.Sprintf("%s layer (t %d, b %d)", m.name, m.tp, m.microbatch)
		for _, q := range []struct {
			what                 string
			published, predicted float64
		}{{"forward", c.forward, 1e3 * st.TF}, {"backward", c.back, 1e3 * back}} {
			vr := row("layer", config, q.what+", "+c.setting, "ms", q.published, q.predicted, "one transformer layer on one of the 8 GPUs")
			rows = append(rows, vr)
		}
	}
	return rows, nil
}
