package sim

import (
	"fmt"
	"math"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// Iterations is the result of simulating several iterations of a schedule
// under variability.
type Iterations struct {
	// Makespans holds each iteration's makespan, in order.
	Makespans []float64
	// Mean is their mean and Spread their sample standard deviation (0 for
	// a single iteration).
	Mean, Spread float64
	// First is iteration 0's timeline, the one Simulate returns when
	// opt.Variability.Seed is the seed given, kept so that a caller who
	// wants both does not simulate that iteration twice.
	First *Timeline
}

// SimulateIterations simulates k iterations of t, each with its own random
// streams drawn from seed (which replaces opt.Variability.Seed), and
// returns their makespans. The same seed gives the same makespans.
func SimulateIterations(t *pipeline.Table, cost cost.Model, opt Options, k int, seed uint64) (Iterations, error) {
	if k < 1 {
		return Iterations{}, fmt.Errorf("sim: simulate iterations: k = %d; simulate at least one iteration", k)
	}
	opt.Variability.Seed = seed
	// Bad inputs are reported as such, before any plan; without one, as
	// the first iteration's.
	var plan []planTimes
	if err := checkInputs(t, cost, opt); err != nil {
		if waitsAsPlanned(opt) {
			return Iterations{}, err
		}
		return Iterations{}, fmt.Errorf("sim: iteration 0: %w", err)
	}
	if waitsAsPlanned(opt) {
		var err error
		if plan, err = makePlan(opt.Context, t, cost); err != nil {
			return Iterations{}, err
		}
	}
	it := Iterations{Makespans: make([]float64, k)}
	for i := range k {
		tl, err := simulate(t, cost, opt, i, plan)
		if err != nil {
			return Iterations{}, fmt.Errorf("sim: iteration %d: %w", i, err)
		}
		if i == 0 {
			it.First = tl
		}
		it.Makespans[i] = Makespan(tl)
	}
	it.Mean, it.Spread = meanSpread(it.Makespans)
	return it, nil
}

// meanSpread returns the mean and the sample standard deviation of xs.
func meanSpread(xs []float64) (mean, spread float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}
