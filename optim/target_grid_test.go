package optim

import (
	"math"
	"testing"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/objectives/charlm"
	"github.com/pipelab/pipelab/pipeline"
)

// countedLM counts the validation losses a run asks of the LM.
type countedLM struct {
	*charlm.Model
	validations int
}

func (c *countedLM) ValidationLoss(x []float64) float64 {
	c.validations++
	return c.Model.ValidationLoss(x)
}

// TestTargetGridIsTheDefaultRecords: with fewer records than
// DefaultRecords a run still times its target on the grid DefaultRecords
// records would give (Settings.TargetLoss), so LogPoints does not change
// TimeToTarget or UpdatesToTarget: the reference is the same run with the
// default records, whose records judge the target. The target is the
// judged loss at a point of that grid between two sparse records, so a
// run judged at its records only would report a later time. Each point
// between records costs one validation loss (the LM) or one loss
// (logistic regression), and only until the target is reached.
func TestTargetGridIsTheDefaultRecords(t *testing.T) {
	const stages, microbatches, sparse = 4, 60, 7
	const total = stages * microbatches // block updates of every run
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: stages, Microbatches: microbatches})
	flush := generate(t, "gpipe", pipeline.Shape{Ranks: stages, Microbatches: 2})
	for _, c := range []struct {
		name string
		m    Method
		step float64
		lm   bool
	}{
		{"pipedream on the LM", PipeDream{Timeline: tl}, 0.05, true},
		{"rpd on the LM", RPD{Delays: Uniform{Stages: stages, Delta: DefaultDelta(stages), Microbatches: microbatches}}, 0.05, true},
		{"sync on logistic", Sync{Timeline: flush, Iterations: total / stages}, 0.5, false},
		{"pipedream on logistic", PipeDream{Timeline: tl}, 0.05, false},
	} {
		lm := &countedLM{Model: smallLM(t, stages)}
		obj := objectives.Objective(logistic(t, 40, 8, stages, 4, 0, 1))
		if c.lm {
			obj = lm
		}
		judged := func(r Record) float64 {
			if c.lm {
				return r.ValidationLoss
			}
			return r.Loss
		}
		set := Settings{StepSize: c.step, Seed: 3}
		dense := mustRun(t, obj, c.m, set)
		recorded := map[int]bool{} // the update counts the sparse records hold
		for _, r := range mustRun(t, obj, c.m, Settings{StepSize: c.step, Seed: 3, LogPoints: sparse}).Records {
			recorded[r.Updates] = true
		}
		// The target: the lowest judged loss so far at the first point of
		// the default grid past a third of the run that no sparse record
		// holds and that improves on every point before it.
		target, at := math.Inf(1), -1
		for _, r := range dense.Records {
			if v := judged(r); v < target {
				target = v
				if r.Updates > total/3 && !recorded[r.Updates] {
					at = r.Updates
					break
				}
			}
		}
		if at < 0 {
			t.Fatalf("%s: no new low of the judged loss between sparse records past a third of the run", c.name)
		}
		// What the target costs the sparse run beyond its records: the
		// default grid's points up to the target that no record holds.
		checks := 0
		for _, r := range dense.Records {
			if r.Updates > 0 && r.Updates <= at && !recorded[r.Updates] {
				checks++
			}
		}
		set.TargetLoss = target
		lm.validations = 0
		dense = mustRun(t, obj, c.m, set)
		set.LogPoints = sparse
		lm.validations = 0
		res := mustRun(t, obj, c.m, set)
		if dense.UpdatesToTarget != at {
			t.Fatalf("%s: the default records reach the target at %d updates, want %d", c.name, dense.UpdatesToTarget, at)
		}
		if res.UpdatesToTarget != dense.UpdatesToTarget || math.Float64bits(res.TimeToTarget) != math.Float64bits(dense.TimeToTarget) {
			t.Errorf("%s: %d records reach the target at %d updates (time %g), %d records at %d (time %g)",
				c.name, len(res.Records), res.UpdatesToTarget, res.TimeToTarget, len(dense.Records), dense.UpdatesToTarget, dense.TimeToTarget)
		}
		if len(res.Records) != len(recorded) {
			t.Errorf("%s: %d records with a target, %d without", c.name, len(res.Records), len(recorded))
		}
		for j := range res.X { // the records and checks only observe the run
			if math.Float64bits(res.X[j]) != math.Float64bits(dense.X[j]) {
				t.Fatalf("%s: x[%d] = %v with sparse records, %v with the default ones", c.name, j, res.X[j], dense.X[j])
			}
		}
		if c.lm {
			if want := len(res.Records) + checks; lm.validations != want {
				t.Errorf("%s: %d validation losses, want %d (%d records, %d points of the target grid between them)",
					c.name, lm.validations, want, len(res.Records), checks)
			}
		}
	}
}
