package request

import (
	"context"
	"io"
)

// Report is a command's result: its JSON encoding is what the command
// prints with --format json (Command.JSON), WriteText what it prints as
// text.
type Report interface {
	WriteText(w io.Writer) error
}

// Command is one command as the library runs it from its flags by their
// command-line names: the decoding the command line and the server share,
// then the typed request's function. The server runs these and no
// command line.
type Command struct {
	Name string
	// JSON says the report's JSON encoding is the command's --format json
	// (schedule and kinds print text only).
	JSON bool
	// Run decodes args (the flags, as "--name=value"; standard input is
	// none) into the typed request and runs it with ctx. A flag error's
	// usage goes to stderr.
	Run func(ctx context.Context, args []string, stderr io.Writer) (Report, error)
	// Stream, for a command that takes records as it runs (train), is Run
	// passing each record to record as it is taken, in the form of the
	// report's points; nil for the others.
	Stream func(ctx context.Context, args []string, record func(point any), stderr io.Writer) (Report, error)
	decode func(args []string, stderr io.Writer) error
}

// NewCommand is a command of a package beside this one (request/train,
// which needs Arrow): its name, whether its report is its --format json,
// its Run, and decode, which parses its flags only (Flags reads its flag
// set through it).
func NewCommand(name string, json bool, run func(ctx context.Context, args []string, stderr io.Writer) (Report, error),
	decode func(args []string, stderr io.Writer) error) Command {
	return Command{Name: name, JSON: json, Run: run, decode: decode}
}

// Flags says how a served request may set each of the command's flags,
// read from its flag set (FlagsOf).
func (c Command) Flags() (map[string]ServedFlag, error) { return FlagsOf(c.decode) }

// commands are the library's commands by name.
var commands = map[string]Command{
	"simulate": {Name: "simulate", JSON: true,
		Run: func(ctx context.Context, args []string, stderr io.Writer) (Report, error) {
			return RunSimulate(ctx, args, stderr)
		},
		decode: func(args []string, stderr io.Writer) error { _, _, err := DecodeSimulate(args, stderr); return err }},
	"schedule": {Name: "schedule",
		Run: func(ctx context.Context, args []string, stderr io.Writer) (Report, error) {
			return RunSchedule(ctx, args, stderr)
		},
		decode: func(args []string, stderr io.Writer) error { _, err := DecodeSchedule(args, stderr); return err }},
	"check": {Name: "check", JSON: true,
		Run: func(ctx context.Context, args []string, stderr io.Writer) (Report, error) {
			req, _, err := DecodeCheck(args, nil, stderr)
			if err != nil {
				return nil, err
			}
			return Check(ctx, req)
		},
		decode: func(args []string, stderr io.Writer) error { _, _, err := DecodeCheck(args, nil, stderr); return err }},
	"presets": {Name: "presets", JSON: true,
		Run: func(ctx context.Context, args []string, stderr io.Writer) (Report, error) {
			if _, err := DecodePresets(args, stderr); err != nil {
				return nil, err
			}
			return Presets(), ctx.Err()
		},
		decode: func(args []string, stderr io.Writer) error { _, err := DecodePresets(args, stderr); return err }},
	"delays": {Name: "delays", JSON: true,
		Run: func(ctx context.Context, args []string, stderr io.Writer) (Report, error) {
			req, _, err := DecodeDelays(args, stderr)
			if err != nil {
				return nil, err
			}
			return Delays(ctx, req)
		},
		decode: func(args []string, stderr io.Writer) error { _, _, err := DecodeDelays(args, stderr); return err }},
	"compare": {Name: "compare", JSON: true,
		Run: func(ctx context.Context, args []string, stderr io.Writer) (Report, error) {
			req, _, err := DecodeCompare(args, stderr)
			if err != nil {
				return nil, err
			}
			return Compare(ctx, req)
		},
		decode: func(args []string, stderr io.Writer) error { _, _, err := DecodeCompare(args, stderr); return err }},
	"tune": {Name: "tune", JSON: true,
		Run: func(ctx context.Context, args []string, stderr io.Writer) (Report, error) {
			req, _, err := DecodeTune(args, stderr)
			if err != nil {
				return nil, err
			}
			return Tune(ctx, req)
		},
		decode: func(args []string, stderr io.Writer) error { _, _, err := DecodeTune(args, stderr); return err }},
	"kinds": {Name: "kinds",
		Run: func(ctx context.Context, args []string, stderr io.Writer) (Report, error) {
			if err := DecodeKinds(args, stderr); err != nil {
				return nil, err
			}
			return Kinds(), ctx.Err()
		},
		decode: DecodeKinds},
}

// CommandNamed returns the library's command of that name.
func CommandNamed(name string) (Command, bool) {
	c, ok := commands[name]
	return c, ok
}
