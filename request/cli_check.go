package request

import (
	"context"
	"errors"
	"fmt"
	"github.com/pipelab/pipelab/fault"
	"io"
	"os"

	"github.com/pipelab/pipelab/pipeline"
)

const checkDescription = `
Reads a schedule in PyTorch's CSV format (torch.distributed.pipelining: row i
is rank i's actions, an empty cell a bubble) from FILE.csv, or from standard
input when FILE.csv is -, infers its placement and microbatch count, checks
the order of its actions as PyTorch's loader does (_validate_schedule: a B
or I after its F, a W after its I, one B or one I and W per microbatch and
stage, every microbatch forwarded and backwarded on every stage, a stage on
one rank), and runs PyTorch's unit-time lockstep check on it.

A file without SEND or RECV actions is a compute order (compute_only; it may
carry REDUCE_GRAD, UNSHARD and RESHARD, as PyTorch's own orders do) and is
lowered first as PyTorch's runtime lowers a loaded file: bubbles are dropped,
then SEND and RECV actions are added (_add_send_recv). Before that, adjacent
I and W of the same stage and microbatch are merged into B (_merge_bw), as
PyTorch's own test of this path does; --merge-iw=false keeps them apart, as
the runtime does. The runtime's UNSHARD, RESHARD and REDUCE_GRAD passes are
not applied: they add no wait between ranks. A file with SEND or RECV
actions (compute_comms), or one without bubbles that lowering would not
change (a single rank's, as "pipelab schedule --comms" prints it), is checked
as it is.

--ranks N checks the file against the pipeline group it is meant for: a
file with more or fewer lines than N ranks is refused, as PyTorch refuses a
schedule whose rank count differs from its group's size; without it the
ranks are the file's lines. --validate=false skips the order rules above and
only lowers and steps the file, as PyTorch's own tests of its lowering and
simulator do (test_send_recv): its loader would refuse such a file, so a
file that needs the flag will not load in PyTorch.

A malformed file is reported as FILE:LINE: cell N: reason, naming the rule
it breaks; a schedule whose ranks wait on each other forever is reported
with the step, the blocked ranks and what they wait for. Both exit non-zero.`

// CheckReport is what "pipelab check" prints.
type CheckReport struct {
	CSVFormat    string `json:"csv_format"` // compute_only or compute_comms (docs/csv.md), not --format
	Ranks        int    `json:"ranks"`
	Stages       int    `json:"stages"`
	Microbatches int    `json:"microbatches"`
	Steps        int    `json:"steps"`
}

// CheckRequest is one "pipelab check": the PyTorch schedule CSV to read
// (File, or Stdin when File is "-"; a nil Stdin refuses "-") and how to
// check it.
type CheckRequest struct {
	File    string
	Stdin   io.Reader
	Options CheckOptions
}

// DecodeCheck decodes check's command line (FILE.csv|- and its flags) into
// its request, with --format. A flag error's usage goes to stderr.
func DecodeCheck(args []string, stdin io.Reader, stderr io.Writer) (CheckRequest, string, error) {
	fs := NewFlags("check", "FILE.csv|- [--ranks N] [--format text|json] [--merge-iw=false] [--validate=false]", checkDescription, stderr)
	var output OutputFlag
	var opt CheckOptions
	output.Register(fs)
	fs.BoolVar(&opt.MergeIW, "merge-iw", true, "merge adjacent I and W into B before lowering a compute_only file")
	fs.IntVar(&opt.Ranks, "ranks", 0, "the ranks of the pipeline group: refuse a file with another number of lines; 0 takes the file's")
	fs.BoolVar(&opt.Validate, "validate", true, "check the order rules of PyTorch's loader (_validate_schedule) before lowering")
	if err := ParseFlags(fs, args); err != nil {
		return CheckRequest{}, "", err
	}
	var file string
	if rest := fs.Args(); len(rest) > 0 {
		file = rest[0]
		if err := ParseFlags(fs, rest[1:]); err != nil {
			return CheckRequest{}, "", err
		}
	}
	if file == "" || fs.NArg() > 0 {
		return CheckRequest{}, "", FlagProblem(fs, stderr, "check", errors.New("want exactly one FILE.csv, or - for standard input"))
	}
	if err := output.Check(); err != nil {
		return CheckRequest{}, "", FlagProblem(fs, stderr, "check", err)
	}
	if opt.Ranks < 0 {
		return CheckRequest{}, "", FlagProblem(fs, stderr, "check", fmt.Errorf("--ranks must be at least 1 (0 for the file's lines), got %d", opt.Ranks))
	}
	return CheckRequest{File: file, Stdin: stdin, Options: opt}, output.Format, nil
}

// Check reads, validates, lowers and steps the request's file. Every
// refusal is the file's: bad input.
func Check(ctx context.Context, req CheckRequest) (CheckReport, error) {
	rep, err := checkFile(ctx, req.File, req.Stdin, req.Options)
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	if err != nil {
		return rep, fault.Bad(err)
	}
	return rep, nil
}

// WriteText prints the report as "pipelab check" does without --format
// json.
func (rep CheckReport) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "format:       %s\nranks:        %d\nstages:       %d\nmicrobatches: %d\nsteps:        %d\n",
		rep.CSVFormat, rep.Ranks, rep.Stages, rep.Microbatches, rep.Steps)
	return err
}

// stdinName names standard input in error messages.
const stdinName = "<stdin>"

// CheckOptions are check's flags beside --format.
type CheckOptions struct {
	MergeIW  bool // --merge-iw
	Validate bool // --validate
	Ranks    int  // --ranks; 0 takes the file's
}

// checkFile reads, validates, lowers if needed, and simulates one schedule
// file ("-" for standard input).
func checkFile(ctx context.Context, file string, stdin io.Reader, opt CheckOptions) (CheckReport, error) {
	name, in := file, stdin
	if file == "-" {
		name = stdinName
		if stdin == nil {
			return CheckReport{}, errors.New("- reads standard input, which this caller has not: give the file")
		}
	} else {
		f, err := os.Open(file)
		if err != nil {
			return CheckReport{}, fault.Bad(err)
		}
		defer f.Close()
		in = f
	}
	t, err := ReadScheduleInput(in, name)
	if err != nil {
		return CheckReport{}, err
	}
	if opt.Ranks > 0 {
		if err := pipeline.ValidateRanks(t, name, opt.Ranks); err != nil {
			return CheckReport{}, err
		}
	}
	if opt.Validate {
		if err := pipeline.ValidateCSV(t, name); err != nil {
			return CheckReport{}, err
		}
	}
	if err := ctx.Err(); err != nil {
		return CheckReport{}, err
	}
	rep := CheckReport{CSVFormat: "compute_only", Ranks: t.Ranks(), Stages: t.Stages(), Microbatches: t.Microbatches}
	comms, err := lowerForCheck(t, opt.MergeIW)
	if err != nil {
		return rep, fmt.Errorf("%s: %w", name, err)
	}
	if comms == t {
		rep.CSVFormat = "compute_comms"
		if err := noBubbles(t, name); err != nil {
			return rep, err
		}
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if rep.Steps, err = pipeline.Lockstep(comms); err != nil {
		return rep, fmt.Errorf("%s: %w", name, err)
	}
	return rep, nil
}

// lowerForCheck returns the table to step: t itself when it is already
// lowered (it has SEND or RECV actions, or it has no bubbles and lowering
// would add nothing, as on a single rank), or else t lowered as PyTorch's
// runtime lowers a loaded compute order, with I and W merged first if
// mergeIW is set.
func lowerForCheck(t *pipeline.Table, mergeIW bool) (*pipeline.Table, error) {
	if t.HasComms() {
		return t, nil
	}
	lowered, err := pipeline.Lower(pipeline.DropBubbles(t))
	if err != nil {
		return nil, err
	}
	if !lowered.HasComms() && !hasBubbles(t) {
		return t, nil
	}
	if mergeIW {
		return pipeline.Lower(pipeline.MergeIW(t))
	}
	return lowered, nil
}

// hasBubbles reports whether a table has an empty cell.
func hasBubbles(t *pipeline.Table) bool {
	for _, row := range t.Rows {
		for _, a := range row {
			if a.IsBubble() {
				return true
			}
		}
	}
	return false
}

// noBubbles rejects a compute_comms table with an empty cell, which
// PyTorch's loader refuses.
func noBubbles(t *pipeline.Table, file string) error {
	for r, row := range t.Rows {
		for i, a := range row {
			if a.IsBubble() {
				return &pipeline.ParseError{File: file, Line: r + 1, Cell: i + 1,
					Reason: "empty cell in a compute_comms file (one with SEND/RECV or other non-compute actions): that format has no bubbles"}
			}
		}
	}
	return nil
}
