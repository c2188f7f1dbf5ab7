package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/pipelab/pipelab/request"
)

// scheduleCommand is "pipelab schedule"; main.go lists it.
var scheduleCommand = command{
	name:    "schedule",
	summary: "generate a schedule table and print its grid or its PyTorch CSV",
	run:     runSchedule,
}

const scheduleDescription = `
Generates the schedule of one family ("pipelab kinds" lists them) for P
ranks and M microbatches and prints it. The text format is the idealised
unit-time grid (T_F = T_B = T_W = 1): one line per rank, one column per
step, "." for a bubble, rows labelled "rank r:"; with one stage per rank it is
drawn as the papers draw it (microbatches from 1, the stage left out). The csv format is PyTorch's
schedule CSV (torch.distributed.pipelining), compute_only, or compute_comms
with --comms, which first adds the SEND/RECV actions PyTorch's
_add_send_recv would. For the families PyTorch has (gpipe, 1f1b,
interleaved-1f1b, looped-bfs, interleaved-zb, zb-v, dualpipev) the
compute_only file has the cells of PyTorch's pipeline_order, its empty cells
included, rather than the grid's bubbles (docs/csv.md). --kind zb-auto is built from costs, the cost flags of
"pipelab simulate" (unit times without them), within --max-activations.`

// scheduleFlags are the command's flags, kept together so that checks can
// name the flag that was wrong.
type scheduleFlags struct {
	shapeFlags
	costs  costFlags
	output outputFlag
	comms  bool
	set    map[string]bool // flags given on the command line
}

func runSchedule(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	req, err := decodeSchedule(args, stderr)
	if err != nil {
		return err
	}
	rep, err := request.Schedule(ctx, req)
	if err != nil {
		return err
	}
	if err := rep.Write(stdout); err != nil {
		return err
	}
	if rep.TorchRefusal != nil {
		fmt.Fprintf(stderr, "pipelab schedule: warning: PyTorch's schedule validation (_validate_schedule) refuses this file, which runs every microbatch on every stage: %s\n", rep.TorchRefusal)
	}
	return nil
}

// decodeSchedule decodes schedule's flags into the library's request: the
// table generated (zb-auto from the cost flags) and the form to print. A
// flag error's usage goes to stderr.
func decodeSchedule(args []string, stderr io.Writer) (request.ScheduleRequest, error) {
	fs := newFlags("schedule", "--kind KIND --ranks P (--microbatches M | --total-microbatches N) [flags]", scheduleDescription, stderr)
	var f scheduleFlags
	f.shapeFlags.register(fs)
	f.registerFamilyOptions(fs)
	f.output.registerFormats(fs, formatText, formatCSV)
	fs.BoolVar(&f.comms, "comms", false, "add SEND/RECV actions (PyTorch's lowering) before printing")
	f.costs.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return request.ScheduleRequest{}, err
	}
	f.set = setFlags(fs)
	f.costs.set, f.shapeFlags.set = f.set, f.set
	if err := f.check(fs.Args()); err != nil {
		return request.ScheduleRequest{}, flagProblem(fs, stderr, "schedule", err)
	}
	f.cellBytes = scheduleCellBytes
	t, err := f.generateFor(&f.costs)
	if err != nil {
		return request.ScheduleRequest{}, err
	}
	return request.ScheduleRequest{Table: t, Comms: f.comms, CSV: f.output.format == formatCSV}, nil
}

// check refuses flag values no family could use, naming the flag.
func (f *scheduleFlags) check(rest []string) error {
	if err := noArguments(rest); err != nil {
		return err
	}
	if f.kind == "" {
		return fmt.Errorf("--kind is required (one of %s)", strings.Join(familyNames(), ", "))
	}
	if err := f.shapeFlags.parseKind(f.set); err != nil {
		return err
	}
	if err := f.shapeFlags.check(); err != nil {
		return err
	}
	if err := f.checkZBAuto(); err != nil {
		return err
	}
	if err := f.output.check(); err != nil {
		return err
	}
	switch {
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
