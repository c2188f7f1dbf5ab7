package request

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/pipelab/pipelab/fault"
	"io"
	"strings"

	"github.com/pipelab/pipelab/pipeline/sim"
	"github.com/pipelab/pipelab/pipeline/tune"
)

// ClusterTuneReport is what "pipelab tune --gpus N --batch-size B" prints
// as JSON: every tensor × pipeline × data split tried and the best. Times
// are seconds, memory bytes, FLOP/s per GPU as Narayanan et al. count them.
type ClusterTuneReport struct {
	Model     string `json:"model"`
	GPUs      int    `json:"gpus"`
	BatchSize int    `json:"batch_size"`
	// PostValidation says each step is the longest rank span plus that
	// rank's optimizer step (tune.ClusterProblem.PostValidation).
	PostValidation bool           `json:"post_validation,omitempty"`
	Best           ClusterSplit   `json:"best"`
	Splits         []ClusterSplit `json:"splits"`
}

type ClusterSplit struct {
	TP               int     `json:"tp"`
	Ranks            int     `json:"ranks"`
	DP               int     `json:"dp"`
	Kind             string  `json:"kind,omitempty"`
	Chunks           int     `json:"chunks,omitempty"`
	Microbatches     int     `json:"microbatches,omitempty"`
	Partition        []int   `json:"partition,omitempty"`
	IterationSeconds float64 `json:"iteration_seconds,omitempty"`
	ModelFLOPsPerGPU float64 `json:"model_flops_per_gpu,omitempty"`
	PeakMemory       float64 `json:"peak_memory_bytes,omitempty"`
	Why              string  `json:"why,omitempty"`
}

func splitJS(s tune.Split) ClusterSplit {
	out := ClusterSplit{TP: s.Tensor, Ranks: s.Pipeline, DP: s.Data, Why: s.Why}
	if b := s.Best; b != nil {
		out.Kind, out.Chunks, out.Microbatches, out.Partition = b.Schedule.Family, max(b.Schedule.Chunks, 1), b.Microbatches, b.Partition
		out.IterationSeconds, out.ModelFLOPsPerGPU, out.PeakMemory = s.Iteration.Seconds, s.Iteration.ModelFLOPsPerGPU, b.PeakMemory
	}
	return out
}

// runCluster is tune with --gpus: the split of the GPUs into tensor,
// pipeline and data parallelism is searched too, at a fixed --batch-size.
func (f tuneFlags) runCluster(ctx context.Context) (TuneReport, error) {
	cfg, err := f.presets.Config()
	if err != nil {
		return TuneReport{}, fault.Bad(err)
	}
	p := tune.ClusterProblem{Config: cfg, GPUs: f.gpus, Batch: f.batchSize, MemoryBytes: float64(f.gpuMemory), Sim: sim.Options{Context: ctx},
		PostValidation: f.postValidation}
	if f.schedules != "" {
		if p.Schedules, err = parseSchedules(f.schedules); err != nil {
			return TuneReport{}, fault.Bad(err)
		}
	}
	splits, err := p.Splits()
	if err != nil {
		return TuneReport{}, fault.Bad(err)
	}
	for _, sp := range splits {
		m := f.batchSize / (sp.Data * cfg.Microbatch)
		if err := GuardTune(tune.Problem{Config: cfg, Ranks: sp.Pipeline, Microbatches: []int{m}, Schedules: p.Schedules}); err != nil {
			return TuneReport{}, err
		}
	}
	res, err := tune.TuneCluster(p)
	if ctx.Err() != nil {
		return TuneReport{}, ctx.Err() // the request was given up
	}
	if err != nil {
		return TuneReport{}, fault.Bad(err) // no split fits: a workload the GPUs cannot hold
	}
	rep := ClusterTuneReport{Model: f.presets.ModelName(), GPUs: f.gpus, BatchSize: f.batchSize, Best: splitJS(res.Best), PostValidation: f.postValidation}
	for _, sp := range res.Splits {
		rep.Splits = append(rep.Splits, splitJS(sp))
	}
	return TuneReport{Cluster: &rep}, nil
}

// checkCluster names the flag that is wrong with --gpus.
func (f tuneFlags) checkCluster(fs *flag.FlagSet) error {
	set := SetFlags(fs)
	switch {
	case !f.presets.Given():
		return errors.New("--model is required (or --model-config)")
	case f.batchSize < 1:
		return fmt.Errorf("--gpus needs --batch-size, the samples of one iteration over all replicas, at least 1; got %d", f.batchSize)
	case set["ranks"] || set["microbatches"] || set["tp"] || set["dp"]:
		return errors.New("--gpus searches the split into --tp, --ranks and --dp, and --batch-size sets the microbatches: drop --ranks, --microbatches, --tp and --dp")
	case f.out != "" || f.gantt != "" || f.baselineGantt != "":
		return errors.New("--gpus reports the splits; --out, --gantt and --baseline-gantt apply to one pipeline (tune --ranks)")
	}
	return FirstError(NoArguments(fs.Args()), f.presets.Check(), f.output.Check())
}

func writeClusterTuneText(w io.Writer, rep ClusterTuneReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %d GPUs, batch %d\n", rep.Model, rep.GPUs, rep.BatchSize)
	fmt.Fprintf(&b, "best: --tp %d --ranks %d --dp %d, %s, %d microbatches, --partition %s\n", rep.Best.TP, rep.Best.Ranks, rep.Best.DP,
		kindName(rep.Best), rep.Best.Microbatches, joinInts(rep.Best.Partition))
	fmt.Fprintf(&b, "      step %.4g s, %.4g TFLOP/s per GPU (Narayanan et al. eq. 3, a recomputed forward counted), peak memory %s\n",
		rep.Best.IterationSeconds, rep.Best.ModelFLOPsPerGPU/1e12, GB(rep.Best.PeakMemory))
	if rep.PostValidation {
		b.WriteString("      (post-validation: a step is the longest rank span, then that rank's gradient sync and optimizer step)\n")
	}
	b.WriteString("\n")
	b.WriteString("  tp  ranks   dp  kind                     microbatches      step (s)  TFLOP/s/GPU  peak memory\n")
	for _, s := range rep.Splits {
		if s.Why != "" {
			fmt.Fprintf(&b, "%4d  %5d  %3d  %s\n", s.TP, s.Ranks, s.DP, s.Why)
			continue
		}
		fmt.Fprintf(&b, "%4d  %5d  %3d  %-24s %12d  %12.4g  %11.4g  %11s\n", s.TP, s.Ranks, s.DP, kindName(s), s.Microbatches,
			s.IterationSeconds, s.ModelFLOPsPerGPU/1e12, GB(s.PeakMemory))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func kindName(s ClusterSplit) string {
	if s.Chunks > 1 {
		return fmt.Sprintf("%s×%d", s.Kind, s.Chunks)
	}
	return s.Kind
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}
