package request

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pipelab/pipelab/fault"
	"github.com/pipelab/pipelab/internal/budget"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/tune"
)

const tuneDescription = `
Searches how to run a model preset on a pipeline of GPUs joined by a link:
how to cut its layers into stages (balanced by simulated time, not by layer
count), which schedule family runs them (which fixes the placement: loop or
V, or for Chimera two pipelines that each run every part, so a rank holds
two replicas) and with how many microbatches, within a memory limit per
rank. Every candidate is timed by the event simulator under the GPU timing
model.

Prints the choice against Megatron-LM's way (layers split evenly by count,
1F1B or interleaved 1F1B with 2 chunks, at the chosen microbatch count).
The partition is printed as "--partition L0,L1,...", the layers of each
model part in model order, in the form "pipelab simulate --partition" takes:
simulate with the same --kind, --stages, --microbatches and presets and that
flag reproduces the tuned makespan. --out writes the chosen schedule as
PyTorch CSV (the partition is printed, not written: "pipelab simulate
--schedule" prices a CSV with the even split); --gantt and
--baseline-gantt draw the two timelines (PNG or SVG by extension). Without
--microbatches the tuner tries P, 2P and 4P: time per sample falls as the
count grows, so it picks the largest that fits. "pipelab presets" lists the
models, GPUs and links; --model-config and --hardware take a HuggingFace
config.json and a hardware file instead.

With --gpus N and --batch-size B the tuner also splits the N GPUs into
tensor-parallel groups inside a node (--tp), pipeline ranks (--ranks) and
data-parallel replicas (--dp), runs the search above for every split at the
microbatch count the batch leaves, and keeps the shortest whole step
(pipeline, gradient all-reduce, optimizer step); --gpus-per-node and
--node-link give the nodes.

With --costs or --profile (measured per-stage times) the stages are fixed:
the tuner chooses the schedule and the microbatch count among the families
whose tables have the measured number of stages, with no memory model.`

// TunePipelineReport is what "pipelab tune" prints as JSON. Times are seconds,
// memory bytes.
type TunePipelineReport struct {
	Model              string  `json:"model"`
	GPU                string  `json:"gpu"`
	Link               string  `json:"link"`
	Ranks              int     `json:"ranks"`
	MemoryLimit        float64 `json:"memory_limit_bytes"`
	Kind               string  `json:"kind"`
	Chunks             int     `json:"chunks"`
	Placement          string  `json:"placement"`
	Microbatches       int     `json:"microbatches"`
	Partition          []int   `json:"partition"`
	TunedMakespan      float64 `json:"tuned_makespan"`
	TunedPerSample     float64 `json:"tuned_per_sample"`
	TunedPeakMemory    float64 `json:"tuned_peak_memory_bytes"`
	BaselineKind       string  `json:"baseline_kind"`
	BaselineChunks     int     `json:"baseline_chunks"`
	BaselinePartition  []int   `json:"baseline_partition"`
	BaselineMakespan   float64 `json:"baseline_makespan"`
	BaselinePerSample  float64 `json:"baseline_per_sample"`
	BaselinePeakMemory float64 `json:"baseline_peak_memory_bytes"`
	BaselineFits       bool    `json:"baseline_fits"`
	Speedup            float64 `json:"speedup"`
	Simulations        int     `json:"simulations"`
	// PostValidation says the per-sample times are the longest rank span
	// over the samples (tune.Problem.PostValidation), not the makespan.
	PostValidation bool `json:"post_validation,omitempty"`
}

// tuneMode is which search a tune request runs.
type tuneMode uint8

const (
	tunePipeline tuneMode = iota
	tuneCluster
	tuneMeasured
)

type tuneFlags struct {
	mode                      tuneMode
	presets                   PresetFlags
	ranks, microbatches       int
	gpuMemory                 int64 // bytes, --gpu-memory; 0 is the GPU's
	schedules                 string
	out, gantt, baselineGantt string
	output                    OutputFlag
	measured                  MeasuredFlags
	gpus, batchSize           int // --gpus searches the tensor × pipeline × data split
	postValidation            bool
}

// TuneRequest is one "pipelab tune", as DecodeTune reads it from its
// flags: a search of one pipeline (--ranks), of the split of a cluster
// (--gpus), or of measured stages (--costs, --profile).
type TuneRequest struct {
	f *tuneFlags
}

// TuneOutput is what a tune command line asks to be printed and written
// beyond its report: --format, the CSV of --out, the charts of --gantt and
// --baseline-gantt, titled CostName.
type TuneOutput struct {
	Format, Out, Gantt, BaselineGantt, CostName string
}

// DecodeTune decodes tune's flags into its request, with its output
// choices. A flag error's usage goes to stderr.
func DecodeTune(args []string, stderr io.Writer) (TuneRequest, TuneOutput, error) {
	fs := NewFlags("tune", "(--model M | --model-config FILE.json) --gpu G --link L (--ranks P [--microbatches M] | --gpus N --batch-size B) [--gpu-memory SIZE] [--out FILE.csv] [--format text|json]",
		tuneDescription, stderr)
	var f tuneFlags
	f.presets.Register(fs, "model preset (pipelab presets lists them)", "")
	fs.IntVar(&f.ranks, "ranks", 0, "pipeline ranks (devices) P")
	fs.IntVar(&f.microbatches, "microbatches", 0, "microbatches per iteration (0: try P, 2P and 4P)")
	fs.Func("gpu-memory", "memory limit per rank, a size such as 40GB or 64GiB (GB = 10⁹ bytes, as the presets; default: the GPU's memory)", func(v string) error {
		b, err := budget.ParseBytes(v)
		f.gpuMemory = b
		return err
	})
	fs.StringVar(&f.schedules, "kind", "", "schedule families to try: a comma-separated family[:chunks] list, e.g. 1f1b,interleaved-1f1b:4 (default: the synchronous families)")
	fs.StringVar(&f.out, "out", "", "write the chosen schedule as PyTorch CSV to this file")
	fs.StringVar(&f.gantt, "gantt", "", "draw the chosen schedule's timeline to this .png or .svg")
	fs.StringVar(&f.baselineGantt, "baseline-gantt", "", "draw the baseline's timeline to this .png or .svg")
	MarkFiles(fs, WritesFile, nil, "out", "gantt", "baseline-gantt")
	f.output.Register(fs)
	f.measured.Register(fs)
	fs.IntVar(&f.gpus, "gpus", 0, "GPUs T·P·D: search the split into --tp, --ranks and --dp too (with --batch-size)")
	fs.IntVar(&f.batchSize, "batch-size", 0, "with --gpus: samples of one iteration over all data-parallel replicas")
	fs.BoolVar(&f.postValidation, "post-validation", false, "rank the runs as the Zero Bubble runtime's optimizer post-validation runs them, iterations overlapping: by the longest rank span, not the makespan, zb-auto chosen by it too (with --gpus, a split's step is that span plus its rank's optimizer step)")
	if err := ParseFlags(fs, args); err != nil {
		return TuneRequest{}, TuneOutput{}, err
	}
	out := TuneOutput{Format: f.output.Format, Out: f.out, Gantt: f.gantt, BaselineGantt: f.baselineGantt, CostName: f.costName()}
	fail := func(err error) (TuneRequest, TuneOutput, error) {
		return TuneRequest{}, TuneOutput{}, FlagProblem(fs, stderr, "tune", err)
	}
	switch {
	case f.measured.Given():
		f.mode = tuneMeasured
		if err := f.checkMeasured(fs); err != nil {
			return fail(err)
		}
		if f.schedules != "" {
			if _, err := parseSchedules(f.schedules); err != nil {
				return fail(err)
			}
		}
	case f.gpus != 0 || f.batchSize != 0:
		f.mode = tuneCluster
		if f.gpus < 1 {
			return fail(fmt.Errorf("--batch-size goes with --gpus, at least 1; got --gpus %d", f.gpus))
		}
		if err := f.checkCluster(fs); err != nil {
			return fail(err)
		}
	default:
		if err := f.check(fs.Args()); err != nil {
			return fail(err)
		}
	}
	return TuneRequest{f: &f}, out, nil
}

// TuneReport is tune's report: Pipeline for a search of one pipeline or of
// measured stages, Cluster for a cluster's splits; its JSON encoding is
// the one set. Result is the search's candidates (the text lists them, the
// command line writes --out and the charts from them).
type TuneReport struct {
	Pipeline *TunePipelineReport
	Cluster  *ClusterTuneReport
	Result   *tune.Result
	measured bool
}

// MarshalJSON encodes the report as "pipelab tune --format json" prints
// it.
func (r TuneReport) MarshalJSON() ([]byte, error) {
	if r.Cluster != nil {
		return json.Marshal(r.Cluster)
	}
	return json.Marshal(r.Pipeline)
}

// WriteText prints the report as "pipelab tune" does without --format
// json.
func (r TuneReport) WriteText(w io.Writer) error {
	switch {
	case r.Cluster != nil:
		return writeClusterTuneText(w, *r.Cluster)
	case r.measured:
		return writeTuneMeasuredText(w, *r.Pipeline, r.Result)
	}
	return writeTuneText(w, *r.Pipeline, r.Result)
}

// Tune runs the request's search, stopping soon after ctx ends.
func Tune(ctx context.Context, req TuneRequest) (TuneReport, error) {
	f := req.f
	if f == nil {
		return TuneReport{}, badInputf("tune: no request (DecodeTune builds it)")
	}
	switch f.mode {
	case tuneMeasured:
		return f.runMeasured(ctx)
	case tuneCluster:
		return f.runCluster(ctx)
	}
	p, err := f.problem()
	if err != nil {
		return TuneReport{}, fault.Bad(err)
	}
	if err := GuardTune(p); err != nil {
		return TuneReport{}, err
	}
	p.Sim.Context = ctx
	res, err := tune.Tune(p)
	if errors.Is(err, tune.ErrNothingFits) {
		return TuneReport{}, fault.Bad(err) // a workload the GPUs cannot hold
	}
	if err != nil {
		return TuneReport{}, err
	}
	rep := newTuneReport(*f, p, res)
	return TuneReport{Pipeline: &rep, Result: res}, nil
}

// check names the flag that is wrong.
func (f tuneFlags) check(rest []string) error {
	if err := NoArguments(rest); err != nil {
		return err
	}
	switch {
	case !f.presets.Given():
		return errors.New("--model is required (or --model-config)")
	case f.ranks < 1:
		return Required("ranks", f.ranks, SetFlags(f.presets.FS))
	case f.microbatches < 0:
		return fmt.Errorf("--microbatches must not be negative, got %d", f.microbatches)
	}
	if err := f.presets.Check(); err != nil {
		return err
	}
	if err := f.output.Check(); err != nil {
		return err
	}
	if err := FirstError(CheckOutputFolder("out", f.out), CheckOutputFolder("gantt", f.gantt), CheckOutputFolder("baseline-gantt", f.baselineGantt)); err != nil {
		return err
	}
	for _, path := range []string{f.gantt, f.baselineGantt} {
		if ext := strings.ToLower(filepath.Ext(path)); path != "" && ext != ".png" && ext != ".svg" {
			return fmt.Errorf("a Gantt chart must end in .png or .svg, got %q", path)
		}
	}
	return nil
}

func (f tuneFlags) problem() (tune.Problem, error) {
	cfg, err := f.presets.Config()
	if err != nil {
		return tune.Problem{}, err
	}
	p := tune.Problem{Config: cfg, Ranks: f.ranks, MemoryBytes: float64(f.gpuMemory), PostValidation: f.postValidation}
	if f.microbatches > 0 {
		p.Microbatches = []int{f.microbatches}
	}
	if f.schedules != "" {
		if p.Schedules, err = parseSchedules(f.schedules); err != nil {
			return tune.Problem{}, err
		}
	}
	return p, nil
}

// parseSchedules reads --kind (ParseKinds) as the tuner's schedules.
func parseSchedules(list string) ([]tune.Schedule, error) {
	items, err := ParseKinds(list)
	if err != nil {
		return nil, err
	}
	var out []tune.Schedule
	for _, k := range items {
		out = append(out, tune.Schedule{Family: k.Name, Chunks: k.Chunks})
	}
	return out, nil
}

// costName names the GPU model the tuner prices with, for chart titles:
// the hardware file's GPU and link when there is one, not the flags'
// defaults.
func (f tuneFlags) costName() string {
	gpu, link := f.presets.GPU, f.presets.Link
	if f.presets.Hardware != "" {
		gpu, link = f.presets.FromHardware.GPU.Name, f.presets.FromHardware.Link.Name
	}
	return fmt.Sprintf("GPU model (%s on %s over %s)", f.presets.ModelName(), gpu, link)
}

func newTuneReport(f tuneFlags, p tune.Problem, res *tune.Result) TunePipelineReport {
	limit := p.MemoryBytes
	if limit == 0 {
		limit = p.Config.GPU.MemoryBytes
	}
	b, base := res.Best, res.Baseline
	return TunePipelineReport{
		Model: f.presets.ModelName(), GPU: p.Config.GPU.Name, Link: p.Config.Link.Name, Ranks: f.ranks, MemoryLimit: limit,
		Kind: b.Schedule.Family, Chunks: cost.ChunksPerRank(b.Table), Placement: b.Placement,
		Microbatches: b.Microbatches, Partition: b.Partition,
		TunedMakespan: b.Makespan, TunedPerSample: b.PerSample, TunedPeakMemory: b.PeakMemory, PostValidation: p.PostValidation,
		BaselineKind: base.Schedule.Family, BaselineChunks: cost.ChunksPerRank(base.Table),
		BaselinePartition: base.Partition, BaselineMakespan: base.Makespan, BaselinePerSample: base.PerSample,
		BaselinePeakMemory: base.PeakMemory, BaselineFits: base.Fits,
		Speedup: res.Speedup, Simulations: res.Simulations,
	}
}

func writeTuneText(w io.Writer, rep TunePipelineReport, res *tune.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %d × %s over %s, memory limit %.1f GB per rank\n", rep.Model, rep.Ranks, rep.GPU, rep.Link, rep.MemoryLimit/1e9)
	line := func(name string, c tune.Candidate) {
		fmt.Fprintf(&b, "%-9s %s, %s placement, %d microbatches, --partition %s\n", name, c.Schedule, c.Placement, c.Microbatches, partitionFlag(c.Partition))
		if rep.PostValidation {
			fmt.Fprintf(&b, "%-9s makespan %.4f s, longest rank span %.4f s, %.2f ms per sample (post-validation: the span), peak memory %.1f GB\n", "",
				c.Makespan, c.LongestSpan, 1e3*c.PerSample, c.PeakMemory/1e9)
			return
		}
		fmt.Fprintf(&b, "%-9s makespan %.4f s, %.2f ms per sample, peak memory %.1f GB\n", "", c.Makespan, 1e3*c.PerSample, c.PeakMemory/1e9)
	}
	line("tuned:", res.Best)
	line("baseline:", res.Baseline)
	if !rep.BaselineFits {
		b.WriteString("          (the baseline does not fit in the memory limit)\n")
	}
	fmt.Fprintf(&b, "speedup:  %.3f× over the Megatron-LM baseline (%d simulations)\n", rep.Speedup, rep.Simulations)
	fmt.Fprintf(&b, "\nbest per schedule at %d microbatches (ms per sample, peak GB):\n", rep.Microbatches)
	for _, c := range res.Candidates {
		if c.Microbatches != rep.Microbatches {
			continue
		}
		fits := ""
		if !c.Fits {
			fits = "  over the limit"
		}
		fmt.Fprintf(&b, "  %-22s %8.2f  %6.1f  --partition %s%s\n", c.Schedule, 1e3*c.PerSample, c.PeakMemory/1e9, partitionFlag(c.Partition), fits)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// partitionFlag writes a partition as "pipelab simulate --partition" takes
// it: layer counts separated by commas.
func partitionFlag(part []int) string {
	fields := make([]string, len(part))
	for i, n := range part {
		fields[i] = strconv.Itoa(n)
	}
	return strings.Join(fields, ",")
}
