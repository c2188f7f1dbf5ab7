package request

import (
	"context"
	"flag"
	"fmt"
	"github.com/pipelab/pipelab/fault"
	"io"
	"strings"

	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
	"github.com/pipelab/pipelab/pipeline/tune"
)

// runMeasured is "tune" on measured stage times (--costs or --profile):
// the stages are fixed, so only the schedule and the microbatch count are
// chosen, and there is no memory model.
func (f *tuneFlags) runMeasured(ctx context.Context) (TuneReport, error) {
	p := tune.MeasuredProblem{Costs: f.measured.Read, Ranks: f.ranks, Sim: sim.Options{Context: ctx}, PostValidation: f.postValidation}
	if f.microbatches > 0 {
		p.Microbatches = []int{f.microbatches}
	}
	if f.schedules != "" {
		var err error
		if p.Schedules, err = parseSchedules(f.schedules); err != nil {
			return TuneReport{}, fault.Bad(err)
		}
	}
	res, err := tune.TuneMeasured(p)
	if err != nil {
		return TuneReport{}, err
	}
	rep := TunePipelineReport{Model: "measured (" + f.measured.Read.Source + ")", Ranks: f.ranks,
		Kind: res.Best.Schedule.Family, Chunks: cost.ChunksPerRank(res.Best.Table), Placement: res.Best.Placement,
		Microbatches: res.Best.Microbatches, TunedMakespan: res.Best.Makespan, TunedPerSample: res.Best.PerSample,
		BaselineKind: res.Baseline.Schedule.Family, BaselineChunks: cost.ChunksPerRank(res.Baseline.Table),
		BaselineMakespan: res.Baseline.Makespan, BaselinePerSample: res.Baseline.PerSample, BaselineFits: true,
		Speedup: res.Speedup, Simulations: res.Simulations, PostValidation: f.postValidation}
	return TuneReport{Pipeline: &rep, Result: res, measured: true}, nil
}

// checkMeasured names the flag that is wrong for measured costs.
func (f *tuneFlags) checkMeasured(fs *flag.FlagSet) error {
	set := SetFlags(fs)
	for _, name := range []string{"model", "model-config", "gpu", "link", "hardware", "microbatch-size", "seq-len", "flash-attention", "memory", "efficiency"} {
		if set[name] {
			return fmt.Errorf("--%s does not apply to measured costs (--costs, --profile): they fix the stages' times and carry no memory", name)
		}
	}
	switch {
	case len(fs.Args()) > 0:
		return NoArguments(fs.Args())
	case f.ranks < 1:
		return Required("ranks", f.ranks, SetFlags(f.presets.FS))
	case f.microbatches < 0:
		return fmt.Errorf("--microbatches must not be negative, got %d", f.microbatches)
	}
	if err := f.output.Check(); err != nil {
		return err
	}
	if err := f.measured.Check(); err != nil {
		return err
	}
	if n := len(f.measured.Read.Stages); n < f.ranks || n%f.ranks != 0 {
		return fmt.Errorf("--ranks %d: the %d measured stages do not split over %d ranks", f.ranks, n, f.ranks)
	}
	return nil
}

func writeTuneMeasuredText(w io.Writer, rep TunePipelineReport, res *tune.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %d ranks (no memory model: every candidate fits)\n", rep.Model, rep.Ranks)
	line := func(name string, c tune.Candidate) {
		if rep.PostValidation {
			fmt.Fprintf(&b, "%-9s %s, %s placement, %d microbatches: makespan %.4f s, longest rank span %.4f s, %.3f ms per microbatch (post-validation: the span)\n",
				name, c.Schedule, c.Placement, c.Microbatches, c.Makespan, c.LongestSpan, 1e3*c.PerSample)
			return
		}
		fmt.Fprintf(&b, "%-9s %s, %s placement, %d microbatches: makespan %.4f s, %.3f ms per microbatch\n",
			name, c.Schedule, c.Placement, c.Microbatches, c.Makespan, 1e3*c.PerSample)
	}
	line("tuned:", res.Best)
	line("baseline:", res.Baseline)
	fmt.Fprintf(&b, "speedup:  %.3f× over the Megatron-LM baseline (%d simulations)\n", rep.Speedup, rep.Simulations)
	if len(res.Skipped) > 0 {
		fmt.Fprintf(&b, "not run: %s\n", strings.Join(res.Skipped, "; "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
