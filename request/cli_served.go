package request

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
)

// ServedFlag says how a request sent to the server may set one flag of a
// command: File for a flag that names a file the command reads (the
// request sends the file, or one of Keywords), Refused for one that names
// a file it writes or that the server sets itself (--format,
// --max-memory).
type ServedFlag struct {
	File     bool
	Keywords []string
	Refused  bool
}

// FlagsOf says how a request may set each flag of the command whose flag
// set decode parses (DecodeSimulate, DecodeSchedule): read from the flag
// set itself, as its --help gives it, so that no list can drift from it.
func FlagsOf(decode func(args []string, stderr io.Writer) error) (map[string]ServedFlag, error) {
	var h HelpRequest
	if !errors.As(decode([]string{"--help"}, io.Discard), &h) {
		return nil, errors.New("--help gave no flag set")
	}
	out := map[string]ServedFlag{}
	h.FS.VisitAll(func(fl *flag.Flag) {
		var f ServedFlag
		switch ff, ok := fl.Value.(FileFlag); {
		case ok && ff.Use == ReadsFile:
			f = ServedFlag{File: true, Keywords: slices.Clone(ff.Keywords)}
		case ok || fl.Name == "format" || fl.Name == "max-memory":
			f.Refused = true
		}
		out[fl.Name] = f
	})
	return out, nil
}

// Message is err as the command line prints it: "pipelab NAME: " and
// what was wrong, in one line, without Go package prefixes; "" for an
// error already printed (a usage error) or none.
func Message(name string, err error) string {
	if err == nil || errors.Is(err, ErrUsage) || errors.Is(err, flag.ErrHelp) || errors.Is(err, ErrParsedOnly) {
		return ""
	}
	return fmt.Sprintf("pipelab %s: %s", name, OneLine(trimPrefix(UserText(err), name+": ")))
}

func trimPrefix(s, prefix string) string {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):]
	}
	return s
}

// RunSimulate is DecodeSimulate's request run (Simulate), its output
// choices dropped: the server's simulate, and Go's from a command line.
func RunSimulate(ctx context.Context, args []string, stderr io.Writer) (SimulateReport, error) {
	req, _, err := DecodeSimulate(args, stderr)
	if err != nil {
		return SimulateReport{}, err
	}
	return Simulate(ctx, req)
}

// RunSchedule is DecodeSchedule's request run (Schedule).
func RunSchedule(ctx context.Context, args []string, stderr io.Writer) (ScheduleReport, error) {
	req, err := DecodeSchedule(args, stderr)
	if err != nil {
		return ScheduleReport{}, err
	}
	return Schedule(ctx, req)
}
