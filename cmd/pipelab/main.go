// Command pipelab builds, checks, simulates and replays pipeline-parallel
// training schedules. Run "pipelab help" for the subcommands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/pipelab/pipelab/fault"
	"io"
	"io/fs"
	"os"
	"sort"
	"syscall"

	"github.com/pipelab/pipelab/internal/budget"
	"github.com/pipelab/pipelab/request"
)

// command is one subcommand: each lives in its own file as a value
// (simulateCommand in simulate.go, ...), and init below lists them all,
// the one place that does, as cmd/go's main does.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands are the subcommands by name, filled by init from the list;
// a map without an initializer, so that the commands' own code may look
// them up (serve, help) without an initialization cycle.
var commands = map[string]command{}

func init() {
	for _, c := range []command{
		checkCommand, compareCommand, delaysCommand, kindsCommand, mergeCommand, plotCommand, presetsCommand,
		reproduceCommand, scheduleCommand, serveCommand, simulateCommand, sweepCommand, trainCommand, tuneCommand,
		validateCommand,
	} {
		register(c)
	}
}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("pipelab: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func main() {
	stopOnSignal(os.Stderr)
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	if signalled.Load() {
		select {} // the signal handler exits with the signal's status
	}
	os.Exit(code)
}

func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext runs one command line, cancelled with ctx, and returns its
// exit status.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "version") {
		fmt.Fprintln(stdout, version())
		return 0
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		switch {
		case len(args) == 0:
			usage(stderr)
			return 2
		case len(args) == 1 || args[0] != "help":
			usage(stdout)
			return 0
		}
		if _, ok := commands[args[1]]; !ok {
			fmt.Fprintf(stderr, "pipelab help: unknown command %q%s; see pipelab help\n", args[1], suggestCommand(args[1]))
			return 2
		}
		args = []string{args[1], "--help"}
	}
	// --max-memory holds for one command line.
	budget.SetLimit(0)
	return runArgs(ctx, args, stdout, stderr)
}

// runArgs runs the command args[0] with the flags args[1:] under the
// memory limit as it is set, and returns its exit status (statusOf).
// The server runs its requests through it: serve sets the limit once for
// all of them, so that commands running side by side never reset it.
func runArgs(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "pipelab: unknown command %q%s; see pipelab help\n", args[0], suggestCommand(args[0]))
		return 2
	}
	return statusOf(c.name, c.run(ctx, args[1:], stdout, stderr), stdout, stderr)
}

// statusOf is the one mapping of a command's error to its exit status (0
// done or help printed, 2 bad input, 1 a run that failed), printing the
// error as one line of stderr ("pipelab NAME: what was wrong") and a help
// request's usage on stdout.
func statusOf(name string, err error, stdout, stderr io.Writer) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		if h, ok := request.IsHelp(err); ok {
			h.Print(stdout)
		}
		return 0
	case errors.Is(err, request.ErrUsage):
		return 2
	case errors.Is(err, request.ErrParsedOnly):
		return 0
	}
	fmt.Fprintln(stderr, request.Message(name, err))
	if isBadInput(err) {
		return 2 // refused before it ran: bad input
	}
	return 1
}

// isBadInput reports whether err is about the input (exit status 2)
// rather than a run that failed (1): a refused value or a size over the
// memory limit (fault's kinds, which every package marks its errors with), a spec or input file that is wrong or missing, a missing
// output folder, a file or folder that may not be written (EACCES, EPERM,
// EROFS).
func isBadInput(err error) bool {
	if errors.Is(err, fault.BadInput) || errors.Is(err, fault.TooLarge) {
		return true
	}
	if _, ok := request.MissingFolder(err); ok {
		return true
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && (errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)) {
		// A file or folder that may not be written, by its permissions or
		// a read-only file system, whatever the operation.
		return true
	}
	return errors.As(err, &pe) && (pe.Op == "open" || pe.Op == "read" || pe.Op == "stat") &&
		(errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EISDIR))
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "pipelab: build, check, simulate and replay pipeline-parallel training schedules")
	fmt.Fprintln(w, "\nusage: pipelab COMMAND [flags]   (pipelab COMMAND --help for its flags)")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
}
