package sim

import "github.com/pipelab/pipelab/pipeline"

// PeakHeld returns, per rank, the most activations held at once in M_B
// when a microbatch whose backward the table splits keeps share of its
// M_B between its I and its W (the Zero Bubble paper's M_W/M_B, in
// (0, 1]): a forward adds 1, a full backward frees 1, an I frees
// 1 − share and a W frees share. It is what PeakMemory counts in bytes,
// in units of M_B; with share 1, or a table that splits no backward, it is
// PeakActivations.
func PeakHeld(tl *Timeline, share float64) []float64 {
	rule := newActivationRule(tl.Table)
	peaks := make([]float64, tl.Table.Ranks())
	for r, evs := range rankCompute(tl) {
		held := 0.0
		for _, i := range evs {
			a := tl.Events[i].Action
			switch d := rule.delta(a); {
			case a.Kind == pipeline.BackwardInput && d == 0:
				held -= 1 - share
			case a.Kind == pipeline.BackwardWeight:
				held -= share
			default:
				held += float64(d)
			}
			peaks[r] = max(peaks[r], held)
		}
	}
	return peaks
}
