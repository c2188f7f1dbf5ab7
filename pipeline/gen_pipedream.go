package pipeline

import "fmt"

func init() {
	registerFamily(Family{
		Name:     "pipedream",
		Summary:  "asynchronous PipeDream (1F1B, weight stashing, update after every backward; docs/reference.md §1.2), NOAM microbatches admitted in flight",
		Generate: pipeDream,
	})
}

// pipeDream builds the unit-time timeline of asynchronous PipeDream with
// weight stashing (Narayanan et al., SOSP 2019) exactly as the PipeDream
// convergence paper's reference code runs it (docs/reference.md §1.2; Ilin and
// Richtárik, arXiv 2606.03498): stage s on rank s, microbatches entering in
// order, F(m, 0) admitted while fewer than NOAM microbatches (default S) are
// in flight on stage 0, and each stage choosing between its next forward
// and its next backward with the steady/pref rule. Every action sits in the
// column of the step it runs in, so the grid is the timeline: 2N + 2S - 2
// steps for NOAM = S, 2SN for NOAM = 1. The table's update rule is
// PerBackward.
func pipeDream(sh Shape) (*Table, error) {
	if err := oneStagePerRank(sh); err != nil {
		return nil, err
	}
	s, n := sh.Ranks, sh.Microbatches
	noam := sh.NOAM
	if noam == 0 {
		noam = s
	}
	if noam < 1 {
		return nil, fmt.Errorf("NOAM (microbatches admitted in flight) must be at least 1, got %d", noam)
	}
	run := newAsyncRun(s, n)
	admit := func(m, stage, step int) bool {
		return stage > 0 || run.inFlight() < noam
	}
	rows, err := run.steps(admit)
	if err != nil {
		return nil, err
	}
	return &Table{Rows: rows, Placement: LoopPlacement(s, s), Microbatches: n, Update: PerBackward, NOAM: noam}, nil
}
