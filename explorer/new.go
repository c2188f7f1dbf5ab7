package explorer

import (
	"context"
	"fmt"
	"io"
	"time"

	typed "github.com/pipelab/pipelab/request"
)

// Options are the settings of a server New builds: Slots, Remote and the
// timeouts, as Server's fields of the same names say.
type Options struct {
	Slots                                  int
	Remote                                 bool
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
}

// New returns the explorer's server wired to the library: simulate and
// schedule decode the page's flags into their typed requests
// (typed.DecodeSimulate, typed.DecodeSchedule) and run them
// (request.Simulate, request.Schedule), in this process, with no command
// line; the flags a request may set are read from the same decoders' flag
// sets (typed.FlagsOf). Any main package (pipelab serve, the static
// WebAssembly build) builds the same server with it.
func New(o Options) *Server {
	return &Server{
		Simulate:     librarySimulate,
		SimulateText: func(w io.Writer, rep typed.SimulateReport) error { return rep.WriteText(w) },
		Schedule:     librarySchedule,
		Flags:        libraryFlags,
		Slots:        o.Slots,
		Remote:       o.Remote,
		ReadTimeout:  o.ReadTimeout,
		WriteTimeout: o.WriteTimeout,
		IdleTimeout:  o.IdleTimeout,
	}
}

// libraryDecoders are the commands whose flags the library decodes, by
// name.
var libraryDecoders = map[string]func(args []string, stderr io.Writer) error{
	"simulate": func(args []string, stderr io.Writer) error {
		_, _, err := typed.DecodeSimulate(args, stderr)
		return err
	},
	"schedule": func(args []string, stderr io.Writer) error {
		_, err := typed.DecodeSchedule(args, stderr)
		return err
	},
}

// libraryFlags says how the page may set each flag of a command the
// library decodes.
func libraryFlags(command string) (map[string]Flag, error) {
	decode, ok := libraryDecoders[command]
	if !ok {
		return nil, fmt.Errorf("pipelab serve: %s is not served by this build", command)
	}
	served, err := typed.FlagsOf(decode)
	if err != nil {
		return nil, fmt.Errorf("pipelab %s: %w", command, err)
	}
	out := make(map[string]Flag, len(served))
	for n, f := range served {
		out[n] = Flag(f)
	}
	return out, nil
}

// librarySimulate runs a "simulate" command line's request through the
// library, returning the report and the exit status (typed.ExitStatus),
// the error written to stderr as the command line writes it.
func librarySimulate(ctx context.Context, args []string, stderr io.Writer) (typed.SimulateReport, int) {
	if len(args) == 0 || args[0] != "simulate" {
		fmt.Fprintln(stderr, "pipelab serve: not a simulate")
		return typed.SimulateReport{}, 2
	}
	rep, err := typed.RunSimulate(ctx, args[1:], stderr)
	return rep, status("simulate", err, stderr)
}

// librarySchedule is librarySimulate for "schedule".
func librarySchedule(ctx context.Context, args []string, stderr io.Writer) (typed.ScheduleReport, int) {
	if len(args) == 0 || args[0] != "schedule" {
		fmt.Fprintln(stderr, "pipelab serve: not a schedule")
		return typed.ScheduleReport{}, 2
	}
	rep, err := typed.RunSchedule(ctx, args[1:], stderr)
	return rep, status("schedule", err, stderr)
}

// status writes err's message to stderr and returns its exit status.
func status(name string, err error, stderr io.Writer) int {
	if msg := typed.Message(name, err); msg != "" {
		fmt.Fprintln(stderr, msg)
	}
	return typed.ExitStatus(err)
}
