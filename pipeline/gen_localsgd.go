package pipeline

import "fmt"

func init() {
	registerFamily(Family{
		Name:     "localsgd",
		Summary:  "LocalSGD on the pipeline (docs/reference.md §1.5): R replicas, averaged every H local steps (H required)",
		Generate: localSGD,
	})
}

// localSGD builds the unit-time timeline of LocalSGD run on the pipeline's
// machines, as the PipeDream convergence paper's reference code runs it
// (docs/reference.md §1.5; Ilin and Richtárik, arXiv 2606.03498). R replicas
// (default S) each take plain SGD steps; microbatch m belongs to replica m
// mod R, and a round is R·H consecutive microbatches, after which the
// replicas are averaged. The stages follow PipeDream's unit-time rules
// (asyncRun) without the admission cap, plus: F(m, s) waits for B(m-R, s)
// unless m is among the first R of its round, and the first stage starts a
// round only after B of the previous round's last microbatch ran on it.
// With R = S the grid takes q(2RH + 2S - 2) + [r > 0](2r + 2S - 2) steps,
// q = ⌊N/RH⌋, r = N mod RH.
func localSGD(sh Shape) (*Table, error) {
	if err := oneStagePerRank(sh); err != nil {
		return nil, err
	}
	s, n := sh.Ranks, sh.Microbatches
	replicas, local := sh.Replicas, sh.LocalSteps
	if replicas == 0 {
		replicas = s
	}
	switch {
	case replicas < 1:
		return nil, fmt.Errorf("replicas must be at least 1, got %d", replicas)
	case local < 1:
		return nil, fmt.Errorf("local steps H (between averagings) must be at least 1, got %d", local)
	}
	round := replicas * local
	run := newAsyncRun(s, n)
	allow := func(m, stage, step int) bool {
		first := m - m%round // first microbatch of m's round
		if m-first >= replicas && !ranBefore(run.bDone[stage][m-replicas], step) {
			return false
		}
		return stage > 0 || first == 0 || ranBefore(run.bDone[0][first-1], step)
	}
	rows, err := run.steps(allow)
	if err != nil {
		return nil, err
	}
	return &Table{Rows: rows, Placement: LoopPlacement(s, s), Microbatches: n,
		Update: ReplicaAveraging, Replicas: replicas, LocalSteps: local}, nil
}
