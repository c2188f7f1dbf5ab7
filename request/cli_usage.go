package request

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pipelab/pipelab/internal/suggest"
)

// The command-line conventions every subcommand shares (docs/cli.md):
// --help and "pipelab help X" print to standard output and exit 0; a flag
// error prints one line and a pointer to --help on standard error and
// exits 2; help spells flags --flag. There are no aliases: an old spelling
// is refused, with the name to use where one is close (internal/suggest).

// HelpRequest is returned by ParseFlags for --help: the dispatcher prints
// the command's usage to standard output and exits 0.
type HelpRequest struct{ FS *flag.FlagSet }

func (h HelpRequest) Error() string { return flag.ErrHelp.Error() }
func (h HelpRequest) Unwrap() error { return flag.ErrHelp }

// print writes the usage to w.
func (h HelpRequest) Print(w io.Writer) {
	out := h.FS.Output()
	h.FS.SetOutput(w)
	h.FS.Usage()
	h.FS.SetOutput(out)
}

// PrintFlags writes fs's flags as --flag, one per entry, with the default
// when it is not the zero value and the usage does not state it already.
func PrintFlags(fs *flag.FlagSet, w io.Writer) {
	fs.VisitAll(func(fl *flag.Flag) {
		arg, usage := flag.UnquoteUsage(unmarked(fl))
		head := "  --" + fl.Name
		if arg != "" {
			head += " " + arg
		}
		if !strings.Contains(usage, "(default") && !zeroDefault(fl) {
			usage += fmt.Sprintf(" (default %s)", fl.DefValue)
		}
		fmt.Fprintf(w, "%s\n      %s\n", head, strings.ReplaceAll(usage, "\n", "\n      "))
	})
}

// zeroDefault says whether fl's default is its type's zero value, which
// the help does not print.
func zeroDefault(fl *flag.Flag) bool {
	switch fl.DefValue {
	case "", "0", "false", "[]":
		return true
	}
	return false
}

// FlagError rewrites the flag package's "-flag" in a parse error as
// "--flag".
func FlagError(err error) string {
	msg := err.Error()
	for _, prefix := range []string{"flag provided but not defined: -", "flag needs an argument: -", "-"} {
		if rest, ok := strings.CutPrefix(msg, prefix); ok {
			return prefix[:len(prefix)-1] + "--" + rest
		}
	}
	if i := strings.Index(msg, " for flag -"); i >= 0 {
		return msg[:i] + " for flag --" + msg[i+len(" for flag -"):]
	}
	return msg
}

// conventionHint answers a flag of the naming convention (docs/cli.md,
// "Ranks, stages, microbatches") given to a command that takes its
// neighbour: the names are too far apart for an edit distance to find.
var conventionHint = map[string]struct{ flag, why string }{
	"stages": {"ranks", "--ranks is the pipeline ranks P; --stages is train's S"},
	"ranks":  {"stages", "train's --stages is S, one stage per rank"},
}

// SeeHelp ends a flag error's line.
func SeeHelp(name string) string { return fmt.Sprintf("see pipelab %s --help", name) }

// FlagLine is the one line of a flag error of command name: what was
// wrong, a did-you-mean for an unknown flag, and where the help is.
func FlagLine(fs *flag.FlagSet, name, msg string) string {
	if rest, ok := strings.CutPrefix(msg, "flag provided but not defined: --"); ok {
		var names []string
		fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
		if hint, ok := conventionHint[rest]; ok && slices.Contains(names, hint.flag) {
			msg += " (did you mean --" + hint.flag + "? " + hint.why + ")"
		} else if near := suggest.Closest(rest, names); near != "" {
			msg += " (did you mean --" + near + "?)"
		}
	}
	return fmt.Sprintf("pipelab %s: %s; %s", name, msg, SeeHelp(name))
}

// IsHelp says whether err asks for a command's help.
func IsHelp(err error) (HelpRequest, bool) {
	var h HelpRequest
	return h, errors.As(err, &h)
}

// count writes n and noun, plural unless n is 1: "1 plot", "3 plots".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
