package validation

import (
	"fmt"
	"math"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// sc21Run is one row of Table 1 of Narayanan et al., "Efficient
// Large-Scale Language Model Training on GPU Clusters Using Megatron-LM"
// (SC21, arXiv 2104.04473): a GPT of the given layers, hidden size and
// heads, run with tensor-parallel size tp and pipeline-parallel size pp on
// gpus A100s (data-parallel size gpus / (tp·pp)), batch samples an
// iteration in microbatches of microbatch, and the achieved teraFLOP/s per
// GPU the paper measured.
//
// Sources: hidden size, layers, GPUs, batch size and teraFLOP/s are the
// paper's Table 1, as the Megatron-LM repository reproduced it in
// images/cases_april2021.png (README.md before commit 2e90a342, May 2022;
// the table's model-parallel size is tp·pp). Heads, tp, pp, the
// microbatch, the layers per virtual stage of the interleaved schedule
// and the data-parallel implementation are Megatron-LM's
// examples/academic_paper_scripts/sc21/run_table_1.sh, which runs every
// row with full recomputation (--activations-checkpoint-method uniform),
// sequence 2048 and fp16 (CONFIG.sh); the vocabulary is 51,200 (README.md)
// and each node holds 8 A100 80GB GPUs (README.md; Selene).
type sc21Run struct {
	name                  string
	layers, hidden, heads int
	tp, pp, gpus          int
	batch, microbatch     int
	layersPerVirtualStage int  // 0: the non-interleaved 1F1B
	torchDDP              bool // --DDP-impl torch (overlaps the all-reduce), else local
	recompute             cost.Recompute
	sequenceParallel      bool
	asyncTensorAllReduce  bool // cost.Parallelism.AsyncTensorAllReduce
	teraFLOPsPerGPU       float64
	calibrates            bool
}

var sc21Runs = []sc21Run{
	{name: "1.7B", layers: 24, hidden: 2304, heads: 24, tp: 1, pp: 1, gpus: 32, batch: 512, microbatch: 16, torchDDP: true, recompute: cost.RecomputeFull, teraFLOPsPerGPU: 137, calibrates: true},
	{name: "3.6B", layers: 30, hidden: 3072, heads: 32, tp: 2, pp: 1, gpus: 64, batch: 512, microbatch: 16, torchDDP: true, recompute: cost.RecomputeFull, teraFLOPsPerGPU: 138, calibrates: true},
	{name: "7.5B", layers: 36, hidden: 4096, heads: 32, tp: 4, pp: 1, gpus: 128, batch: 512, microbatch: 16, torchDDP: true, recompute: cost.RecomputeFull, teraFLOPsPerGPU: 142, calibrates: true},
	{name: "18.4B", layers: 40, hidden: 6144, heads: 48, tp: 8, pp: 1, gpus: 256, batch: 1024, microbatch: 8, torchDDP: true, recompute: cost.RecomputeFull, teraFLOPsPerGPU: 135, calibrates: true},
	{name: "39.1B", layers: 48, hidden: 8192, heads: 64, tp: 8, pp: 2, gpus: 512, batch: 1536, microbatch: 4, recompute: cost.RecomputeFull, teraFLOPsPerGPU: 138},
	{name: "76.1B", layers: 60, hidden: 10240, heads: 80, tp: 8, pp: 4, gpus: 1024, batch: 1792, microbatch: 2, layersPerVirtualStage: 5, recompute: cost.RecomputeFull, teraFLOPsPerGPU: 140},
	{name: "145.6B", layers: 80, hidden: 12288, heads: 96, tp: 8, pp: 8, gpus: 1536, batch: 2304, microbatch: 2, layersPerVirtualStage: 5, recompute: cost.RecomputeFull, teraFLOPsPerGPU: 148},
	{name: "310.1B", layers: 96, hidden: 16384, heads: 128, tp: 8, pp: 16, gpus: 1920, batch: 2160, microbatch: 1, layersPerVirtualStage: 3, recompute: cost.RecomputeFull, teraFLOPsPerGPU: 155},
	{name: "529.6B", layers: 105, hidden: 20480, heads: 128, tp: 8, pp: 35, gpus: 2520, batch: 2520, microbatch: 1, layersPerVirtualStage: 1, recompute: cost.RecomputeFull, teraFLOPsPerGPU: 163},
	{name: "1008.0B", layers: 128, hidden: 25600, heads: 160, tp: 8, pp: 64, gpus: 3072, batch: 3072, microbatch: 1, recompute: cost.RecomputeFull, teraFLOPsPerGPU: 163},
}

// sc21Sequence and sc21Vocab are Table 1's sequence length and vocabulary
// (Megatron-LM README.md); sc21GPUsPerNode Selene's GPUs per node.
const (
	sc21Sequence    = 2048
	sc21Vocab       = 51200
	sc21GPUsPerNode = 8
)

// network is the run's GPT as Megatron-LM builds it.
func (r sc21Run) network() cost.Network {
	return cost.Network{Name: "gpt-" + r.name, Source: "Narayanan et al., SC21, Table 1", Blocks: []cost.Block{
		{Kind: cost.Embedding, Count: 1, Hidden: r.hidden, Vocab: sc21Vocab, Positions: sc21Sequence},
		{Kind: cost.Decoder, Count: r.layers, Hidden: r.hidden, Heads: r.heads, FFN: 4 * r.hidden, Bias: true},
		{Kind: cost.Head, Count: 1, Hidden: r.hidden, Vocab: sc21Vocab, Bias: true, Tied: true},
	}}
}

func (r sc21Run) data() int         { return r.gpus / (r.tp * r.pp) }
func (r sc21Run) microbatches() int { return r.batch / (r.microbatch * r.data()) }

// chunks is the interleaved schedule's model chunks per rank, 1 without.
func (r sc21Run) chunks() int {
	if r.layersPerVirtualStage == 0 {
		return 1
	}
	return r.layers / (r.pp * r.layersPerVirtualStage)
}

// check refuses a row whose numbers do not divide as Megatron-LM needs.
func (r sc21Run) check() error {
	switch {
	case r.gpus%(r.tp*r.pp) != 0:
		return fmt.Errorf("%d GPUs are not a multiple of tp·pp = %d", r.gpus, r.tp*r.pp)
	case r.batch%(r.microbatch*r.data()) != 0:
		return fmt.Errorf("batch %d is not a multiple of microbatch × data-parallel = %d", r.batch, r.microbatch*r.data())
	case r.layers%(r.pp*r.chunks()) != 0:
		return fmt.Errorf("%d layers do not split over %d stages of %d chunks", r.layers, r.pp, r.chunks())
	}
	return nil
}

// sc21Hardware is Selene's node: A100 80GB, NVLink 3 inside the node,
// one HDR InfiniBand port a GPU between nodes (presets a100, nvlink3,
// ib-hdr).
func sc21Hardware() (cost.GPUConfig, error) {
	var c cost.GPUConfig
	var err error
	if c.GPU, err = cost.LookupGPU("a100"); err != nil {
		return c, err
	}
	if c.Link, err = cost.LookupLink("nvlink3"); err != nil {
		return c, err
	}
	if c.InterNode, err = cost.LookupLink("ib-hdr"); err != nil {
		return c, err
	}
	c.RanksPerNode = sc21GPUsPerNode
	return c, nil
}

// clusterKnobs are the two numbers the cluster model calibrates: the
// matrix products' achieved share of the peak, and the element-wise passes
// over each layer's activations (cost.Parallelism.ElementwisePasses).
type clusterKnobs struct{ efficiency, passes float64 }

// config is the run's GPU model.
func (r sc21Run) config(k clusterKnobs) (cost.GPUConfig, error) {
	c, err := sc21Hardware()
	if err != nil {
		return c, err
	}
	c.Network, c.Microbatch, c.Sequence, c.Efficiency = r.network(), r.microbatch, sc21Sequence, k.efficiency
	c.Parallel = cost.Parallelism{Tensor: r.tp, Data: r.data(), Recompute: r.recompute, SequenceParallel: r.sequenceParallel,
		OverlapGradReduce: r.torchDDP, AsyncTensorAllReduce: r.asyncTensorAllReduce, ElementwisePasses: k.passes}
	return c, nil
}

// iteration simulates one iteration of the run: the pipeline schedule
// (1F1B, or interleaved 1F1B with the run's chunks) of the priced stages,
// its transfers blocking the sender as Megatron-LM's do (blockingSends),
// then the gradient reduction and optimizer step (GPUModel.StepTail).
func (r sc21Run) iteration(k clusterKnobs) (float64, error) {
	if err := r.check(); err != nil {
		return 0, err
	}
	cfg, err := r.config(k)
	if err != nil {
		return 0, err
	}
	family, v := "1f1b", r.chunks()
	if v > 1 {
		family = "interleaved-1f1b"
	}
	tab, err := pipeline.Generate(family, pipeline.Shape{Ranks: r.pp, Microbatches: r.microbatches(), Chunks: v})
	if err != nil {
		return 0, err
	}
	stages := r.pp * v
	partition := ones(stages, r.layers/stages)
	partition[0]++        // the embedding
	partition[stages-1]++ // the head
	g, err := cost.NewGPUModelPartition(cfg, partition)
	if err != nil {
		return 0, err
	}
	tl, err := sim.Simulate(tab, megatronBlocking(g, tab, family), sim.Options{})
	if err != nil {
		return 0, err
	}
	return sim.Makespan(tl) + megatronStepTail(g, tab, family), nil
}

// teraFLOPs is the run's achieved teraFLOP/s per GPU at the given
// iteration time, counted as the paper counts (equation 3).
func (r sc21Run) teraFLOPs(iteration float64) (float64, error) {
	c := cost.GPUConfig{Network: r.network(), Sequence: sc21Sequence}
	f, err := c.IterationFLOPs(r.batch)
	if err != nil {
		return 0, err
	}
	return f / (iteration * float64(r.gpus)) / 1e12, nil
}

// ClusterFit is the cluster model's calibration on SC21's Table 1: the
// knobs, the rows they were set on, and how far the other rows land.
type ClusterFit struct {
	Efficiency        float64 `json:"efficiency"`
	ElementwisePasses float64 `json:"elementwise_passes"`
	CalibratedOn      string  `json:"calibrated_on"`
	// OutOfSampleMAE is the mean of |Error| over the rows not calibrated
	// on, OutOfSampleMax the largest, on WorstRow.
	OutOfSampleMAE  float64 `json:"out_of_sample_mae"`
	OutOfSampleMax  float64 `json:"out_of_sample_max"`
	WorstRow        string  `json:"worst_row"`
	OutOfSampleRows int     `json:"out_of_sample_rows"`
}

// sc21Calibration names the rows the cluster model is calibrated on: the
// four without pipeline parallelism (1.7B to 18.4B), where an iteration is
// the matrix products, the element-wise work, the tensor-parallel
// all-reduces and the data-parallel all-reduce alone. Every pipelined row
// (39.1B to 1T) is then a prediction of the schedule on top. The subset is
// the rows whose calibrates field is set.
const sc21Calibration = "the rows without pipeline parallelism (1.7B, 3.6B, 7.5B, 18.4B)"

// sc21Validation calibrates the cluster model on the calibrating rows
// (fitKnobs) and predicts every row's achieved teraFLOP/s per GPU.
func sc21Validation() (*ClusterFit, []ValidationRow, error) {
	var cal []sc21Run
	for _, r := range sc21Runs {
		if r.calibrates {
			cal = append(cal, r)
		}
	}
	k, err := fitKnobs(cal)
	if err != nil {
		return nil, nil, err
	}
	fit := &ClusterFit{Efficiency: k.efficiency, ElementwisePasses: k.passes, CalibratedOn: sc21Calibration}
	var rows []ValidationRow
	for _, r := range sc21Runs {
		it, err := r.iteration(k)
		if err != nil {
			return nil, nil, fmt.Errorf("validation SC21 %s: %w", r.name, err)
		}
		tf, err := r.teraFLOPs(it)
		if err != nil {
			return nil, nil, err
		}
		config := fmt.Sprintf("%s (t %d, p %d, d %d)", r.name, r.tp, r.pp, r.data())
		sched := "1F1B"
		if v := r.chunks(); v > 1 {
			sched = fmt.Sprintf("interleaved, %d chunks", v)
		}
		ddp := "all-reduce after the drain"
		if r.torchDDP {
			ddp = "all-reduce overlapped"
		}
		note := fmt.Sprintf("b %d, m %d, %s, %s; iteration %.3g s", r.microbatch, r.microbatches(), sched, ddp, it)
		vr := row("sc21", config, "teraFLOP/s per GPU", "TFLOP/s", r.teraFLOPsPerGPU, tf, note)
		vr.Source = fmt.Sprintf("Narayanan et al. SC21, Table 1, row %s", r.name)
		if r.calibrates {
			vr.Calibration = "in"
		} else {
			fit.OutOfSampleRows++
			e := math.Abs(vr.Error)
			fit.OutOfSampleMAE += e
			if e > fit.OutOfSampleMax {
				fit.OutOfSampleMax, fit.WorstRow = e, r.name
			}
		}
		rows = append(rows, vr)
	}
	if fit.OutOfSampleRows > 0 {
		fit.OutOfSampleMAE /= float64(fit.OutOfSampleRows)
	}
	return fit, rows, nil
}

// fitKnobs sets the efficiency and the element-wise passes that minimise
// the sum of squared relative errors of the runs' teraFLOP/s: a grid over
// efficiency 0.30 to 1.00 and passes 0 to 20, refined twice around the best
// point at a tenth of the step. The grid is fixed, so the fit is
// deterministic.
func fitKnobs(runs []sc21Run) (clusterKnobs, error) {
	loss := func(k clusterKnobs) (float64, error) {
		var sum float64
		for _, r := range runs {
			it, err := r.iteration(k)
			if err != nil {
				return 0, fmt.Errorf("validation SC21 %s: %w", r.name, err)
			}
			tf, err := r.teraFLOPs(it)
			if err != nil {
				return 0, err
			}
			sum += (tf/r.teraFLOPsPerGPU - 1) * (tf/r.teraFLOPsPerGPU - 1)
		}
		return sum, nil
	}
	lo, hi := clusterKnobs{0.30, 0}, clusterKnobs{1.00, 20}
	de, dp := 0.01, 0.5
	var best clusterKnobs
	for range 3 {
		bestLoss := math.Inf(1)
		ne, np := int(math.Round((hi.efficiency-lo.efficiency)/de)), int(math.Round((hi.passes-lo.passes)/dp))
		for i := range ne + 1 {
			for j := range np + 1 {
				k := clusterKnobs{efficiency: min(1, lo.efficiency+float64(i)*de), passes: lo.passes + float64(j)*dp}
				l, err := loss(k)
				if err != nil {
					return clusterKnobs{}, err
				}
				if l < bestLoss {
					best, bestLoss = k, l
				}
			}
		}
		lo = clusterKnobs{max(0.01, best.efficiency-de), max(0, best.passes-dp)}
		hi = clusterKnobs{min(1, best.efficiency+de), best.passes + dp}
		de, dp = de/10, dp/10
	}
	return best, nil
}
