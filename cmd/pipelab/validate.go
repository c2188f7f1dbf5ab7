package main

import (
	"context"
	"io"

	"github.com/pipelab/pipelab/pipeline/cost/validation"
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
(1.7B to 1T, tensor x pipeline x data parallel), and the activation
formulas of the Zero Bubble and DualPipe schedules. The GPU model's knobs
(the matrix products' efficiency and the element-wise passes) are
calibrated on the smallest Zero Bubble configuration, and on the SC21 rows
without pipeline parallelism; every row says whether it was in the
calibration. docs/validation.md is this output, explained.`

func runValidate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("validate", "[--format text|json]", validateDescription, stderr)
	var output outputFlag
	output.Register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := firstError(noArguments(fs.Args()), output.Check()); err != nil {
		return flagProblem(fs, stderr, "validate", err)
	}
	v, err := validation.ValidateTimingModel()
	if err != nil {
		return err
	}
	return output.Write(stdout, v, func() error { return v.WriteText(stdout) })
}
