// Command pipelab builds, checks, simulates and replays pipeline-parallel
// training schedules. Run "pipelab help" for the subcommands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"syscall"

	"github.com/pipelab/pipelab/experiments"
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

// errUsage marks an error already explained by a usage message.
var errUsage = errors.New("usage")

// badInput marks an error found in the input after the flags were parsed
// (a workload no GPU holds, say): printed as it is, with exit status 2.
type badInput struct{ error }

func (b badInput) Unwrap() error { return b.error }

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
		if h, ok := isHelp(err); ok {
			h.print(stdout)
		}
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, errParsedOnly):
		return 0
	}
	fmt.Fprintf(stderr, "pipelab %s: %s\n", name, oneLine(strings.TrimPrefix(userText(err), name+": ")))
	if isBadInput(err) {
		return 2 // refused before it ran: bad input
	}
	return 1
}

// isBadInput reports whether err is about the input (exit status 2)
// rather than a run that failed (1): a refused value, a size over the
// memory limit, a spec or input file that is wrong or missing, a missing
// output folder, a file or folder that may not be written (EACCES, EPERM,
// EROFS).
func isBadInput(err error) bool {
	if errors.Is(err, budget.ErrTooLarge) || errors.Is(err, experiments.ErrBadInput) || errors.Is(err, request.ErrBadInput) || errors.As(err, new(badInput)) {
		return true
	}
	if _, ok := missingFolder(err); ok {
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

// oneLine joins a message of several lines into one, so that every error
// is one line of standard error.
func oneLine(msg string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", " ")), " ")
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

// newFlags returns a flag set for a subcommand whose --help prints the
// synopsis, the description and the flags to w.
func newFlags(name, synopsis, description string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: pipelab %s %s\n\n%s\n\nflags:\n", name, synopsis, strings.TrimSpace(description))
		printFlags(fs, fs.Output())
	}
	registerMaxMemory(fs)
	return fs
}

// parseFlags parses args into fs and maps a bad flag to errUsage, after
// printing what was wrong in one line and where the help is; --help comes
// back as a helpRequest. A float flag
// given a value that is not a finite number (NaN, ±Inf) is refused here,
// for every command at once.
func parseFlags(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if errors.Is(err, flag.ErrHelp) {
		return helpRequest{fs}
	}
	if err != nil {
		fmt.Fprintln(out, flagLine(fs, fs.Name(), flagError(err)))
		return errUsage
	}
	if err := finiteFloats(fs); err != nil {
		return flagProblem(fs, fs.Output(), fs.Name(), err)
	}
	if parseOnly {
		return errParsedOnly
	}
	return nil
}

// parseOnly, set by a test, stops every command once its flags are
// parsed (errParsedOnly, exit 0): the docs test checks so the command
// lines it does not run (docs_test.go).
var parseOnly bool

var errParsedOnly = errors.New("flags parsed")
