package main

import (
	"fmt"
	"io"

	"pipelab/optim"
	"pipelab/pipeline"
	"pipelab/pipeline/sim"
)

func init() {
	register(command{
		name:    "delays",
		summary: "measure asynchronous PipeDream's weight delays k - j_k^(s) on its unit-time timeline",
		run:     runDelays,
	})
}

const delaysDescription = `
Generates asynchronous PipeDream's unit-time timeline for S stages and N
microbatches (docs/reference.md §1.2; N defaults to 10S) and measures the delay
k - j_k^(s) of every block read by every block update (§1.3): updates are the
backwards in order of time step then stage, and j_k^(s) counts the updates
before the forward of the same microbatch on stage s.

Statistics are over the second half of the updates (the steady state):
the maximum, which is ⌊S² - S/2⌋, the mean and the 10th percentile
(linearly interpolated). max_all is the maximum over every update, warm-up
and drain included.`

// delaysReport is what "pipelab delays" prints.
type delaysReport struct {
	Stages       int     `json:"stages"`
	Microbatches int     `json:"microbatches"`
	TimeSteps    float64 `json:"time_steps"`
	Updates      int     `json:"block_updates"`
	Max          int     `json:"max"`
	Mean         float64 `json:"mean"`
	P10          float64 `json:"p10"`
	MaxAll       int     `json:"max_all"`
}

func runDelays(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("delays", "--stages S [--microbatches N] [--format text|json]", delaysDescription, stderr)
	stages := fs.Int("stages", 0, "pipeline stages S (at least 1)")
	micro := fs.Int("microbatches", 0, "microbatches N (default 10S)")
	var output outputFlag
	output.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkDelays(fs.Args(), *stages, micro, &output); err != nil {
		return flagProblem(fs, stderr, "delays", err)
	}
	shape := pipeline.Shape{Ranks: *stages, Microbatches: *micro}
	if err := guardShape("pipedream", shape, replayCellBytes); err != nil {
		return err
	}
	tab, err := pipeline.Generate("pipedream", shape)
	if err != nil {
		return err
	}
	dt, err := optim.Delays(sim.FromGrid(tab))
	if err != nil {
		return err
	}
	st := dt.Stats(optim.Steady)
	rep := delaysReport{Stages: *stages, Microbatches: *micro, TimeSteps: dt.TimeSteps, Updates: len(dt.Rows),
		Max: st.Max, Mean: st.Mean, P10: st.P10, MaxAll: dt.Stats(optim.All).Max}
	return output.write(stdout, rep, func() error { return writeDelaysText(stdout, rep) })
}

// checkDelays names the flag that is wrong and fills in the default
// microbatch count, 10S.
func checkDelays(rest []string, stages int, micro *int, output *outputFlag) error {
	if err := noArguments(rest); err != nil {
		return err
	}
	if err := atLeast("stages", stages, 1); err != nil {
		return err
	}
	if *micro == 0 {
		*micro = 10 * stages
	}
	if err := atLeast("microbatches", *micro, 1); err != nil {
		return err
	}
	return output.check()
}

func writeDelaysText(w io.Writer, rep delaysReport) error {
	_, err := fmt.Fprintf(w, "stages:        %d\nmicrobatches:  %d\ntime steps:    %g\nblock updates: %d\n"+
		"steady state (second half of the updates):\n  max:  %d\n  mean: %.4f\n  p10:  %.4g\nmax over all updates: %d\n",
		rep.Stages, rep.Microbatches, rep.TimeSteps, rep.Updates, rep.Max, rep.Mean, rep.P10, rep.MaxAll)
	return err
}
