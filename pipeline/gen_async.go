package pipeline

import "fmt"

// asyncRun is the unit-time run of REFERENCE.md §1.2 shared by PipeDream
// and LocalSGD: each stage keeps a next-forward and a next-backward
// pointer, a steady flag and a preference; readiness is judged on the state
// at the end of the previous step.
type asyncRun struct {
	stages, microbatches int
	fDone, bDone         [][]int // step in which F/B(m, s) ran, by stage then microbatch; -1: not yet
	nextF, nextB         []int
	steady, preferB      []bool
}

func newAsyncRun(stages, microbatches int) *asyncRun {
	a := &asyncRun{
		stages: stages, microbatches: microbatches,
		fDone: make([][]int, stages), bDone: make([][]int, stages),
		nextF: make([]int, stages), nextB: make([]int, stages),
		steady: make([]bool, stages), preferB: make([]bool, stages),
	}
	for s := range stages {
		a.fDone[s], a.bDone[s] = make([]int, microbatches), make([]int, microbatches)
		for m := range microbatches {
			a.fDone[s][m], a.bDone[s][m] = -1, -1
		}
	}
	return a
}

// ranBefore reports whether an op that ran in step done (-1: never)
// finished in a step strictly before step.
func ranBefore(done, step int) bool { return done >= 0 && done < step }

// inFlight counts the microbatches on stage 0 that had started F and not
// finished B by the end of the previous step: the stages choose before any
// effect of the step is applied, so the pointers still hold that state.
func (a *asyncRun) inFlight() int { return a.nextF[0] - a.nextB[0] }

// forwardReady reports whether stage s may run F of its next microbatch in
// step: the previous stage ran it earlier and the caller's extra rule
// (admission, replica order) allows it.
func (a *asyncRun) forwardReady(s, step int, allow func(m, s, step int) bool) bool {
	m := a.nextF[s]
	if m >= a.microbatches {
		return false
	}
	if s > 0 && !ranBefore(a.fDone[s-1][m], step) {
		return false
	}
	return allow(m, s, step)
}

// backwardReady reports whether stage s may run B of its next microbatch
// in step: its own F and the next stage's B ran earlier.
func (a *asyncRun) backwardReady(s, step int) bool {
	m := a.nextB[s]
	if m >= a.nextF[s] || !ranBefore(a.fDone[s][m], step) {
		return false
	}
	return s == a.stages-1 || ranBefore(a.bDone[s+1][m], step)
}

// steps runs until B(N-1, 0) has run and returns one row per stage, a
// column per step.
func (a *asyncRun) steps(allow func(m, s, step int) bool) ([][]Action, error) {
	rows := make([][]Action, a.stages)
	chosen := make([]Action, a.stages)
	for step := 0; a.nextB[0] < a.microbatches; step++ {
		idle := true
		for s := range a.stages {
			chosen[s] = a.choose(s, step, allow)
			idle = idle && chosen[s].IsBubble()
		}
		if idle {
			return nil, fmt.Errorf("no stage can run at step %d (stage 0 waits at microbatch %d)", step, a.nextB[0])
		}
		for s, op := range chosen {
			rows[s] = append(rows[s], op)
			switch op.Kind {
			case Forward:
				a.fDone[s][op.Microbatch] = step
				a.nextF[s]++
			case Backward:
				a.bDone[s][op.Microbatch] = step
				a.nextB[s]++
			}
		}
	}
	return rows, nil
}

// choose applies the steady/pref rule of stage s in step: B when it is
// ready and the stage is not yet steady, prefers B, or has no forward
// ready; otherwise F if ready; otherwise nothing.
func (a *asyncRun) choose(s, step int, allow func(m, s, step int) bool) Action {
	fReady := a.forwardReady(s, step, allow)
	if a.backwardReady(s, step) && (!a.steady[s] || a.preferB[s] || !fReady) {
		a.steady[s], a.preferB[s] = true, false
		return B(s, a.nextB[s])
	}
	if fReady {
		if a.steady[s] {
			a.preferB[s] = true
		}
		return F(s, a.nextF[s])
	}
	return Action{}
}
