package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"pipelab/pipeline"
)

func init() {
	register(command{
		name:    "schedule",
		summary: "generate a schedule table and print its grid or its PyTorch CSV",
		run:     runSchedule,
	})
}

const scheduleDescription = `
Generates the schedule of one family ("pipelab kinds" lists them) for P
ranks and M microbatches and prints it. The text format is the idealised
unit-time grid (T_F = T_B = T_W = 1): one line per rank, one column per
step, "." for a bubble; with one stage per rank it is drawn as the papers
draw it (microbatches from 1, "stage s:" labels). The csv format is PyTorch's
schedule CSV (torch.distributed.pipelining), compute_only, or compute_comms
with --comms, which first adds the SEND/RECV actions PyTorch's
_add_send_recv would.`

// scheduleFlags are the command's flags, kept together so that checks can
// name the flag that was wrong.
type scheduleFlags struct {
	kind                         string
	stages, microbatches, chunks int
	replicas, localSteps, noam   int
	format                       string
	comms                        bool
	set                          map[string]bool // flags given on the command line
}

func runSchedule(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("schedule", "--kind KIND --stages P --microbatches M [flags]", scheduleDescription, stderr)
	var f scheduleFlags
	fs.StringVar(&f.kind, "kind", "", "schedule family (see pipelab kinds)")
	fs.IntVar(&f.stages, "stages", 0, "pipeline ranks P (the stage count when each rank holds one stage)")
	fs.IntVar(&f.microbatches, "microbatches", 0, "microbatches M of one iteration (N for pipedream and localsgd)")
	fs.IntVar(&f.chunks, "chunks", 0, "chunks (stages) per rank V; 0 takes the family's default")
	fs.IntVar(&f.replicas, "replicas", 0, "localsgd: replicas R; 0 means P")
	fs.IntVar(&f.localSteps, "local-steps", 0, "localsgd: local steps H between averagings")
	fs.IntVar(&f.noam, "noam", 0, "pipedream: microbatches admitted in flight on stage 0; 0 means P")
	fs.StringVar(&f.format, "format", "text", "output: text (the grid) or csv (PyTorch's schedule CSV)")
	fs.BoolVar(&f.comms, "comms", false, "add SEND/RECV actions (PyTorch's lowering) before printing")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if err := f.check(fs.Args()); err != nil {
		fmt.Fprintf(stderr, "pipelab schedule: %v\n", err)
		return errUsage
	}
	t, err := pipeline.Generate(f.kind, pipeline.Shape{
		Ranks: f.stages, Microbatches: f.microbatches, Chunks: f.chunks,
		Replicas: f.replicas, LocalSteps: f.localSteps, NOAM: f.noam,
	})
	if err != nil {
		return fmt.Errorf("--kind %s with --stages %d --microbatches %d: %w", f.kind, f.stages, f.microbatches, err)
	}
	paper := onePerRank(t) && !f.comms
	if f.comms {
		if t, err = pipeline.Lower(t); err != nil {
			return fmt.Errorf("--comms: %w", err)
		}
	}
	if f.format == "csv" {
		return pipeline.WriteCSV(stdout, t)
	}
	style := pipeline.TorchStyle
	if paper {
		style = pipeline.PaperStyle
	}
	return pipeline.Render(stdout, t, pipeline.RenderOptions{Style: style})
}

// check refuses flag values no family could use, naming the flag.
func (f *scheduleFlags) check(rest []string) error {
	var names []string
	for _, fam := range pipeline.Families() {
		names = append(names, fam.Name)
	}
	switch {
	case len(rest) > 0:
		return fmt.Errorf("unexpected argument %q (all inputs are flags)", rest[0])
	case f.kind == "":
		return fmt.Errorf("--kind is required (one of %s)", strings.Join(names, ", "))
	case !slices.Contains(names, f.kind):
		return fmt.Errorf("--kind %q is not a schedule family (one of %s)", f.kind, strings.Join(names, ", "))
	case f.stages < 1:
		return fmt.Errorf("--stages must be at least 1, got %d", f.stages)
	case f.microbatches < 1:
		return fmt.Errorf("--microbatches must be at least 1, got %d", f.microbatches)
	case f.chunks < 0:
		return fmt.Errorf("--chunks must be at least 1 (0 for the family's default), got %d", f.chunks)
	case f.format != "text" && f.format != "csv":
		return fmt.Errorf("--format must be text or csv, got %q", f.format)
	case f.kind == "localsgd" && f.localSteps < 1:
		return fmt.Errorf("--local-steps H (local steps between averagings, at least 1) is required for --kind localsgd, got %d", f.localSteps)
	}
	for _, only := range []struct {
		flag, family string
		value        int
	}{
		{"noam", "pipedream", f.noam},
		{"replicas", "localsgd", f.replicas},
		{"local-steps", "localsgd", f.localSteps},
	} {
		if f.set[only.flag] && f.kind != only.family {
			return fmt.Errorf("--%s applies to --kind %s only", only.flag, only.family)
		}
		if only.value < 0 {
			return fmt.Errorf("--%s must not be negative, got %d", only.flag, only.value)
		}
	}
	return nil
}

// onePerRank reports whether every rank holds exactly one stage, the case
// the papers draw with microbatches only.
func onePerRank(t *pipeline.Table) bool {
	held := make([]int, t.Ranks())
	for _, r := range t.Placement {
		held[r]++
	}
	for _, n := range held {
		if n != 1 {
			return false
		}
	}
	return true
}
