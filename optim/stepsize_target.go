package optim

import "math"

// FastestToTarget chooses the step size with the smallest time to the
// target loss averaged over seeds, among the steps at which every seed
// reached it: the rule of a figure that reports the time to a target, so
// that it selects on what it reports. Where no step's seeds all reached
// the target it falls back to BestFinal (the loss the target is judged
// on), and the choice is then a loss's, as the docs of such a figure say.
// Ties go to the smaller step.
type FastestToTarget struct{}

// Name returns "fastest-to-target".
func (FastestToTarget) Name() string { return "fastest-to-target" }

// Choose picks the lowest mean Result.TimeToTarget.
func (f FastestToTarget) Choose(steps []float64, runs [][]*Result) (Choice, error) {
	best := Choice{Index: -1, Rule: f.Name(), Score: math.Inf(1)}
	for i := range steps {
		if !usable(runs, i) {
			continue
		}
		var sum float64
		for _, r := range runs[i] {
			sum += r.TimeToTarget
		}
		mean := sum / float64(len(runs[i]))
		if math.IsNaN(mean) { // a seed never reached the target
			continue
		}
		if mean < best.Score || (mean == best.Score && steps[i] < best.StepSize) {
			best = Choice{Index: i, StepSize: steps[i], Score: mean, Rule: f.Name()}
		}
	}
	if best.Index >= 0 {
		return best, nil
	}
	c, err := BestFinal{}.Choose(steps, runs)
	c.Rule = f.Name()
	return c, err
}
