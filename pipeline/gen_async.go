package pipeline

import "fmt"

// asyncRun is the unit-time run of docs/reference.md §1.2 shared by PipeDream
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
	return &asyncRun{
		stages: stages, microbatches: microbatches,
		fDone: notRun(stages, microbatches), bDone: notRun(stages, microbatches),
		nextF: make([]int, stages), nextB: make([]int, stages),
		steady: make([]bool, stages), preferB: make([]bool, stages),
	}
}

// notRun returns stages rows of microbatches steps, all -1 (not yet),
// cut from one array.
func notRun(stages, microbatches int) [][]int {
	buf := make([]int, stages*microbatches)
	for i := range buf {
		buf[i] = -1
	}
	rows := make([][]int, stages)
	for s := range rows {
		rows[s], buf = buf[:microbatches:microbatches], buf[microbatches:]
	}
	return rows
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
// column per step. The run only records the step of each op; the rows are
// laid out once at the end, when their length (the step count) is known,
// and cut from one array.
func (a *asyncRun) steps(allow func(m, s, step int) bool) ([][]Action, error) {
	chosen := make([]Action, a.stages)
	step := 0
	for ; a.nextB[0] < a.microbatches; step++ {
		idle := true
		for s := range a.stages {
			chosen[s] = a.choose(s, step, allow)
			idle = idle && chosen[s].IsBubble()
		}
		if idle {
			return nil, fmt.Errorf("no stage can run at step %d (stage 0 waits at microbatch %d)", step, a.nextB[0])
		}
		for s, op := range chosen {
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
	return a.grid(step), nil
}

// grid lays out a finished run of the given number of steps: every stage's
// row has a column per step, F and B of each microbatch in the columns of
// the steps they ran in, bubbles elsewhere. A finished run has run every
// op: B(N-1, 0) waits on every stage's F and B of every microbatch.
func (a *asyncRun) grid(steps int) [][]Action {
	size := make([]int, a.stages)
	for s := range size {
		size[s] = steps
	}
	rows := carve(size)
	for s := range rows {
		rows[s] = rows[s][:steps]
		for m := range a.microbatches {
			rows[s][a.fDone[s][m]] = F(s, m)
			rows[s][a.bDone[s][m]] = B(s, m)
		}
	}
	return rows
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
