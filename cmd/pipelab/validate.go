package main

import (
	"context"
	"io"

	"github.com/pipelab/pipelab/pipeline/cost/validation"
	"github.com/pipelab/pipelab/request"
)

// validateCommand is "pipelab validate"; main.go lists it.
var validateCommand = command{
	name:    "validate",
	summary: "check the timing model against published measurements (docs/validation.md)",
	run:     runValidate,
}

const validateDescription = `
Prints pipelab's predictions beside published measurements, each with its
error: the Zero Bubble paper's per-stage F, B, W and transfer times
(Appendix D), throughput and memory (Table 4) on its GPT configurations
(Table 3), the achieved teraFLOP/s per GPU of Megatron-LM's SC21 Table 1
(1.7B to 1T, tensor x pipeline x data parallel), the iteration times of
Korthikanti et al.'s Table 5 (22B to 1T, full recomputation against
selective recomputation with sequence parallelism), and the activation
formulas of the Zero Bubble and DualPipe schedules. The GPU model's knobs
(the matrix products' efficiency and the element-wise passes, and for the
Zero Bubble rows a transfer's point-to-point overhead) are calibrated on
the smallest Zero Bubble configuration, and on the SC21 rows without
pipeline parallelism (used for the Table 5 rows too); every row
says whether it was in the calibration, and the first lines give the
out-of-sample errors per table. docs/validation.md is this output,
explained.`

func runValidate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := request.NewFlags("validate", "[--format text|json]", validateDescription, stderr)
	var output request.OutputFlag
	output.Register(fs)
	if err := request.ParseFlags(fs, args); err != nil {
		return err
	}
	if err := request.FirstError(request.NoArguments(fs.Args()), output.Check()); err != nil {
		return request.FlagProblem(fs, stderr, "validate", err)
	}
	v, err := validation.ValidateTimingModel()
	if err != nil {
		return err
	}
	return output.Write(stdout, v, func() error { return v.WriteText(stdout) })
}
