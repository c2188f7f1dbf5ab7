package request

import (
	"fmt"
	"io"
	"strings"
)

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
	ShapeFlags
	costs  CostFlags
	output OutputFlag
	comms  bool
	set    map[string]bool // flags given on the command line
}

// DecodeSchedule decodes schedule's flags into the library's request: the
// table generated (zb-auto from the cost flags) and the form to print. A
// flag error's usage goes to stderr.
func DecodeSchedule(args []string, stderr io.Writer) (ScheduleRequest, error) {
	fs := NewFlags("schedule", "--kind KIND --ranks P (--microbatches M | --total-microbatches N) [flags]", scheduleDescription, stderr)
	var f scheduleFlags
	f.ShapeFlags.Register(fs)
	f.RegisterFamilyOptions(fs)
	f.output.RegisterFormats(fs, FormatText, FormatCSV)
	fs.BoolVar(&f.comms, "comms", false, "add SEND/RECV actions (PyTorch's lowering) before printing")
	f.costs.Register(fs)
	if err := ParseFlags(fs, args); err != nil {
		return ScheduleRequest{}, err
	}
	f.set = SetFlags(fs)
	f.costs.Set, f.ShapeFlags.Set = f.set, f.set
	if err := f.check(fs.Args()); err != nil {
		return ScheduleRequest{}, FlagProblem(fs, stderr, "schedule", err)
	}
	f.CellBytes = ScheduleCellBytes
	t, err := f.GenerateFor(&f.costs)
	if err != nil {
		return ScheduleRequest{}, err
	}
	return ScheduleRequest{Table: t, Comms: f.comms, CSV: f.output.Format == FormatCSV}, nil
}

// check refuses flag values no family could use, naming the flag.
func (f *scheduleFlags) check(rest []string) error {
	if err := NoArguments(rest); err != nil {
		return err
	}
	if f.Kind == "" {
		return fmt.Errorf("--kind is required (one of %s)", strings.Join(FamilyNames(), ", "))
	}
	if err := f.ShapeFlags.ParseKind(f.set); err != nil {
		return err
	}
	if err := f.ShapeFlags.Check(); err != nil {
		return err
	}
	if err := f.checkZBAuto(); err != nil {
		return err
	}
	if err := f.output.Check(); err != nil {
		return err
	}
	switch {
	case f.Kind == "localsgd" && f.LocalSteps < 1:
		return fmt.Errorf("--local-steps H (local steps between averagings, at least 1) is required for --kind localsgd, got %d", f.LocalSteps)
	}
	for _, only := range []struct {
		flag, family string
		value        int
	}{
		{"noam", "pipedream", f.Noam},
		{"replicas", "localsgd", f.Replicas},
		{"local-steps", "localsgd", f.LocalSteps},
	} {
		if f.set[only.flag] && f.Kind != only.family {
			return fmt.Errorf("--%s applies to --kind %s only", only.flag, only.family)
		}
		if only.value < 0 {
			return fmt.Errorf("--%s must not be negative, got %d", only.flag, only.value)
		}
	}
	return nil
}
