package request

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// ErrUsage marks an error already explained by a usage message.
var ErrUsage = errors.New("usage")

// OneLine joins a message of several lines into one, so that every error
// is one line of standard error.
func OneLine(msg string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", " ")), " ")
}

// NewFlags returns a flag set for a subcommand whose --help prints the
// synopsis, the description and the flags to w.
func NewFlags(name, synopsis, description string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: pipelab %s %s\n\n%s\n\nflags:\n", name, synopsis, strings.TrimSpace(description))
		PrintFlags(fs, fs.Output())
	}
	registerMaxMemory(fs)
	return fs
}

// ParseFlags parses args into fs and maps a bad flag to ErrUsage, after
// printing what was wrong in one line and where the help is; --help comes
// back as a HelpRequest. A float flag
// given a value that is not a finite number (NaN, ±Inf) is refused here,
// for every command at once.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if errors.Is(err, flag.ErrHelp) {
		return HelpRequest{FS: fs}
	}
	if err != nil {
		fmt.Fprintln(out, FlagLine(fs, fs.Name(), FlagError(err)))
		return ErrUsage
	}
	if err := finiteFloats(fs); err != nil {
		return FlagProblem(fs, fs.Output(), fs.Name(), err)
	}
	if ParseOnly {
		return ErrParsedOnly
	}
	return nil
}

// ParseOnly, set by a test, stops every command once its flags are
// parsed (ErrParsedOnly, exit 0): the docs test checks so the command
// lines it does not run (docs_test.go).
var ParseOnly bool

var ErrParsedOnly = errors.New("flags parsed")
