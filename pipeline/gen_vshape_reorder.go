package pipeline

import (
	"cmp"
	"slices"
)

// reorderVShape moves the actions of the repeated block into earlier free
// steps where that keeps every rank within its own peak activations in the
// block's order, as the paper's reordering does for the warm-up and the
// cool-down (the paper's keeps all ranks within the highest rank's peak;
// this keeps each rank's memory as the block has it), and
// returns each rank's order by the steps so found. Actions are taken in
// the order of their steps (ties by rank); each goes to the first step,
// from one after the latest of its inputs (the action before it on its
// microbatch's route, the forward before an input gradient, the input
// gradient before a W) and of the action of its kind and stage before it,
// that is free on its rank and, for a forward, keeps the rank's
// activations at or below its peak between the new step and the old one.
// An action's inputs come before it in that order and keep the steps found
// for them, and the actions that need it come after it and are placed
// against its new step, so every input still runs first.
func reorderVShape(timed [][]timedAction, microbatches int) [][]Action {
	p := len(timed)
	horizon := 0
	peak := make([]int, p) // each rank's peak in the block's order
	type placed struct {
		rank int
		timedAction
	}
	var all []placed
	for r, order := range timed {
		held := 0
		for _, c := range order {
			horizon = max(horizon, c.step+1)
			held += activationDelta(c.a.Kind)
			peak[r] = max(peak[r], held)
			all = append(all, placed{r, c})
		}
	}
	slices.SortStableFunc(all, func(x, y placed) int {
		return cmp.Or(cmp.Compare(x.step, y.step), cmp.Compare(x.rank, y.rank))
	})
	busy := make([][]bool, p)
	held := make([][]int, p) // activations held during each step
	for r := range busy {
		busy[r] = make([]bool, horizon)
		held[r] = make([]int, horizon+1)
	}
	for _, c := range all {
		busy[c.rank][c.step] = true
		held[c.rank][c.step] += activationDelta(c.a.Kind)
	}
	for r := range held {
		for t := 1; t <= horizon; t++ {
			held[r][t] += held[r][t-1]
		}
	}
	at := newComputeGrid(2*p, microbatches) // the steps found so far
	last := 2*p - 1
	for i, c := range all {
		a, r := c.a, c.rank
		earliest := 0
		after := func(b Action) {
			if s := at.get(b.Kind, b.Stage, b.Microbatch); s >= 0 {
				earliest = max(earliest, s+1)
			}
		}
		switch a.Kind {
		case Forward:
			if a.Stage > 0 {
				after(F(a.Stage-1, a.Microbatch))
			}
		case BackwardInput:
			after(F(a.Stage, a.Microbatch))
			if a.Stage < last {
				after(I(a.Stage+1, a.Microbatch))
			}
		case BackwardWeight:
			after(I(a.Stage, a.Microbatch))
		}
		if a.Microbatch > 0 {
			after(Act(a.Kind, a.Stage, a.Microbatch-1))
		}
		step := c.step
		for s := earliest; s < c.step; s++ {
			if busy[r][s] || a.Kind == Forward && slices.Max(held[r][s:c.step]) >= peak[r] {
				continue
			}
			step = s
			break
		}
		if step < c.step {
			busy[r][c.step], busy[r][step] = false, true
			for t := step; t < c.step; t++ {
				held[r][t] += activationDelta(a.Kind)
			}
		}
		at.set(a.Kind, a.Stage, a.Microbatch, step)
		all[i].step = step
	}
	orders := make([][]Action, p)
	slices.SortStableFunc(all, func(x, y placed) int { return cmp.Compare(x.step, y.step) })
	for _, c := range all {
		orders[c.rank] = append(orders[c.rank], c.a)
	}
	return orders
}

// activationDelta is what an action of kind k does to the chunk
// activations its rank holds: a forward adds one, a W frees one.
func activationDelta(k Kind) int {
	switch k {
	case Forward:
		return 1
	case BackwardWeight:
		return -1
	}
	return 0
}
