package train

import (
	"context"
	"io"

	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/request"
)

// Command is train as the server runs it (request.Command): its flags
// decoded by Decode, the replay run by Train, its records streamed as the
// report's curve points. The explorer cannot import this package (Arrow);
// a main package that links it hands Command to explorer.New.
func Command() request.Command {
	c := request.NewCommand("train", true,
		func(ctx context.Context, args []string, stderr io.Writer) (request.Report, error) {
			return run(ctx, args, nil, stderr)
		},
		func(args []string, stderr io.Writer) error { _, _, err := Decode(args, stderr); return err })
	c.Stream = run
	return c
}

// run decodes args and replays them, passing each record to record (when
// not nil) as a CurvePoint.
func run(ctx context.Context, args []string, record func(any), stderr io.Writer) (request.Report, error) {
	req, _, err := Decode(args, stderr)
	if err != nil {
		return nil, err
	}
	var each func(optim.Record) error
	if record != nil {
		each = func(r optim.Record) error {
			record(CurvePoint{SimTime: r.Time, BlockUpdates: r.Updates, Loss: FiniteOrNil(r.Loss), ValidationLoss: FiniteOrNil(r.ValidationLoss)})
			return nil
		}
	}
	return Train(ctx, req, each)
}
