package experiments_test

import (
	"context"
	"fmt"
	"math"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/results"
)

// A spec is checked before anything runs; an error names the key and its
// line.
func ExampleParseSpec() {
	_, err := experiments.ParseSpec("sweep.yaml", []byte(`objectives: [quadratic]
n: 100
d: 16
batch_size: 10
stages: [1, 4]
`))
	fmt.Println(err)
	// Output:
	// sweep.yaml:5: stages[0]: stage count 1 is below 2
}

// Expanding a spec gives runs with ids and seeds that depend on their
// parameters only.
func ExampleSpec_Expand() {
	spec, err := experiments.ParseSpec("sweep.yaml", []byte(`seed: 1
objectives: [quadratic]
n: 100
d: 16
batch_size: 10
stages: [4]
total_microbatches: [50]
methods:
  - {name: pipedream, step_sizes: {pow2: [-3, -2]}}
  - {name: rpd, deltas: [paper], step_sizes: {values: [0.125]}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	runs := spec.Expand()
	for _, r := range runs {
		fmt.Println(r.Name)
	}
	// Output:
	// experiment=convergence objective=quadratic n=100 d=16 batch=10 method=pipedream S=4 step=0.125 N=50 cost=unit replicate=0 seed=1
	// experiment=convergence objective=quadratic n=100 d=16 batch=10 method=pipedream S=4 step=0.25 N=50 cost=unit replicate=0 seed=1
	// experiment=convergence objective=quadratic n=100 d=16 batch=10 method=rpd S=4 delta=14 step=0.125 N=50 cost=unit replicate=0 seed=1
}

// One run of a delays experiment: PipeDream's steady-state delays for
// S = 4 and N = 10S, max 14 and mean 7.55 as the reference measures them
// (docs/reference.md §1.3), on a timeline of 2N + 2S - 2 = 86 steps (§1.2).
func ExampleExecute() {
	spec, err := experiments.ParseSpec("delays.yaml", []byte("measure: delays\nstages: [4]\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := experiments.Execute(context.Background(), spec.Expand()[0])
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range out.Delays {
		if d.Window == results.WindowSteady {
			fmt.Printf("%s: %d steps, max %d, mean %.2f\n", d.Window, d.TimeSteps, d.Max, d.Mean)
		}
	}
	// Output:
	// steady: 86 steps, max 14, mean 7.55
}

// The runs of one curve that differ only in step size form a group; the
// rule (best final loss by default) marks the chosen step size.
func ExampleSelectSteps() {
	runs := []results.Run{
		{RunID: "a", Method: "pipedream", Stages: 4, StepSize: 0.5, Outcome: results.OutcomeDiverged, FinalLoss: math.Inf(1)},
		{RunID: "b", Method: "pipedream", Stages: 4, StepSize: 0.25, Outcome: results.OutcomeOK, FinalLoss: 0.125},
		{RunID: "c", Method: "pipedream", Stages: 4, StepSize: 0.125, Outcome: results.OutcomeOK, FinalLoss: 0.25},
	}
	if err := experiments.SelectSteps(runs, nil); err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range runs {
		fmt.Println(r.RunID, r.StepSize, r.Selected)
	}
	// Output:
	// a 0.5 false
	// b 0.25 true
	// c 0.125 false
}

// An unknown figure name is answered with the names there are.
func ExampleLookupFigure() {
	_, err := experiments.LookupFigure("fig9")
	fmt.Println(err)
	// Output:
	// experiments: unknown figure "fig9" (known: delays, pd-vs-rpd, pd-vs-localsgd, pd-vs-localsgd-budget, scaling, regime, lm, lm-markov, schedules, remedies, delay-profiles, staleness-law, optimizers-under-delay)
}

// An objective's traits come from its descriptor, not from its name.
func ExampleObjectiveNamed() {
	d, err := experiments.ObjectiveNamed("logistic")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.LM, d.Noise, d.L2)
	_, err = experiments.ObjectiveNamed("logstic")
	fmt.Println(err)
	// Output:
	// false true true
	// unknown objective "logstic" (known: quadratic, tridiagonal, logistic, charlm)
}

// A cost model's traits come from its descriptor; "" is unit time.
func ExampleCostModelNamed() {
	d, err := experiments.CostModelNamed("")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Name, d.Unit, d.GPU)
	_, err = experiments.CostModelNamed("gpus")
	fmt.Println(err)
	// Output:
	// unit true false
	// unknown cost model "gpus" (known: unit, gpu, explicit, measured)
}
