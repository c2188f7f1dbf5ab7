package sim

import "github.com/pipelab/pipelab/pipeline"

// activationRule says which action frees the activation a forward keeps:
// the W of the same stage and microbatch when the table splits that
// backward, the B or I otherwise.
type activationRule struct {
	microbatches int
	split        []bool // split[s*microbatches+m]: the table has W(s, m)
}

func newActivationRule(t *pipeline.Table) activationRule {
	ar := activationRule{microbatches: max(t.Microbatches, 1)}
	ar.split = make([]bool, t.Stages()*ar.microbatches)
	for _, row := range t.Rows {
		for i := range row {
			if a := &row[i]; a.Kind == pipeline.BackwardWeight && ar.valid(a.Stage, a.Microbatch, t.Stages()) {
				ar.split[a.Stage*ar.microbatches+a.Microbatch] = true
			}
		}
	}
	return ar
}

func (ar activationRule) valid(s, m, stages int) bool {
	return s >= 0 && s < stages && m >= 0 && m < ar.microbatches
}

// delta is the change in activations held on a rank when a ends: +1 for a
// forward, -1 for the action that frees one, 0 otherwise.
func (ar activationRule) delta(a pipeline.Action) int {
	switch a.Kind {
	case pipeline.Forward:
		return 1
	case pipeline.Backward, pipeline.BackwardWeight:
		return -1
	case pipeline.BackwardInput:
		if k := a.Stage*ar.microbatches + a.Microbatch; k >= 0 && k < len(ar.split) && ar.split[k] {
			return 0
		}
		return -1
	}
	return 0 // OVERLAP_F_B keeps one and frees one
}

// FixedPeakActivations returns, per rank, the most activations the rank
// holds when it runs its row in order. It depends on the order alone, so it
// is also what Simulate measures under the Fixed policy, and it is the
// Ready policy's default cap.
func FixedPeakActivations(t *pipeline.Table) []int {
	return fixedPeaks(t, newActivationRule(t))
}

// fixedPeaks is FixedPeakActivations under a rule already built for t.
func fixedPeaks(t *pipeline.Table, ar activationRule) []int {
	peaks := make([]int, t.Ranks())
	for r, row := range t.Rows {
		held := 0
		for _, a := range row {
			held += ar.delta(a)
			peaks[r] = max(peaks[r], held)
		}
	}
	return peaks
}
