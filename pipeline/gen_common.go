package pipeline

import (
	"fmt"
	"strings"
)

// This file holds what the generators share: shape checks and the
// idealised unit-time placement that turns each rank's order of compute
// actions into a grid with its bubbles (whose layOut Lockstep shares).

// checkShape refuses the shapes no family accepts.
func checkShape(sh Shape) error {
	switch {
	case sh.Ranks < 1:
		return fmt.Errorf("ranks must be at least 1, got %d", sh.Ranks)
	case sh.Microbatches < 1:
		return fmt.Errorf("microbatches must be at least 1, got %d", sh.Microbatches)
	case sh.Chunks < 0:
		return fmt.Errorf("chunks (stages per rank) must be at least 1, got %d", sh.Chunks)
	}
	return nil
}

// oneStagePerRank checks a shape for a family that places one stage on
// each rank.
func oneStagePerRank(sh Shape) error {
	if err := checkShape(sh); err != nil {
		return err
	}
	if sh.Chunks > 1 {
		return fmt.Errorf("the family places one stage per rank, so chunks must be 1, got %d", sh.Chunks)
	}
	return nil
}

// chunksOf returns the shape's chunk count, or def when it is left 0.
func chunksOf(sh Shape, def int) int {
	if sh.Chunks == 0 {
		return def
	}
	return sh.Chunks
}

// stageCounter hands out, per stage, the next microbatch of one kind of
// action: schedules that run microbatches in order on every stage only
// need to say which stage comes next.
type stageCounter []int

func (c stageCounter) next(s int) int {
	m := c[s]
	c[s]++
	return m
}

// placeUnitTime fills t.Rows with the idealised unit-time grid of the
// per-rank orders: every action takes one step (T_F = T_B = T_W = 1),
// communication is free, and each rank runs its next action in the first
// step in which the action's inputs were finished in a strictly earlier
// step and the step is not before release(action) (release may be nil).
// Inputs follow the microbatch's route: F(s, m) needs F(s-1, m); B or I(s, m)
// need F(s, m) and the B or I of (s+1, m); W(s, m) needs I(s, m).
//
// An order that can never finish is a bug of the generator that wrote it,
// reported as an error naming the stuck ranks.
//
// The placement only records the step of each action; the rows are laid
// out once at the end, when each rank's length (the step of its last
// action, plus one) is known, and cut from one array. A rank with no
// actions gets a nil row.
func placeUnitTime(t *Table, orders [][]Action, release func(Action) int) (*Table, error) {
	g := newGridClock(t)
	at := stepSlots(orders) // at[r][i]: the step orders[r][i] runs in
	next := make([]int, len(orders))
	left := 0
	for _, o := range orders {
		left += len(o)
	}
	for step := 0; left > 0; step++ {
		moved, waiting := false, false
		for r, order := range orders {
			if next[r] == len(order) {
				continue
			}
			a := order[next[r]]
			if release != nil && release(a) > step {
				waiting = true
				continue
			}
			if !g.ready(a, step) {
				continue
			}
			g.finish(a, step)
			at[r][next[r]] = step
			next[r]++
			left--
			moved = true
		}
		if !moved && !waiting {
			return nil, stuckOrders(orders, next)
		}
	}
	t.Rows = layOut(orders, at)
	return t, nil
}

// stepSlots returns a step per action of the orders, cut from one array.
func stepSlots(orders [][]Action) [][]int {
	total := 0
	for _, o := range orders {
		total += len(o)
	}
	buf := make([]int, total)
	at := make([][]int, len(orders))
	for r, o := range orders {
		at[r], buf = buf[:len(o):len(o)], buf[len(o):]
	}
	return at
}

// layOut places each rank's actions in the columns of the steps they ran
// in, bubbles between: at[r][i] is the step of the i-th action of
// orders[r] that is not a bubble (bubbles in orders are skipped, so
// Lockstep can lay out a table's own rows). A row ends with the rank's
// last action, and a rank without actions gets a nil row.
func layOut(orders [][]Action, at [][]int) [][]Action {
	size := make([]int, len(orders))
	for r, steps := range at {
		if n := len(steps); n > 0 {
			size[r] = steps[n-1] + 1
		}
	}
	rows := carve(size)
	for r, order := range orders {
		if size[r] == 0 {
			rows[r] = nil
			continue
		}
		rows[r] = rows[r][:size[r]]
		i := 0
		for _, a := range order {
			if !a.IsBubble() {
				rows[r][at[r][i]] = a
				i++
			}
		}
	}
	return rows
}

// stuckOrders describes the heads of the orders that cannot run.
func stuckOrders(orders [][]Action, next []int) error {
	var parts []string
	for r, order := range orders {
		if next[r] < len(order) {
			parts = append(parts, fmt.Sprintf("rank %d at %s", r, order[next[r]]))
		}
	}
	return fmt.Errorf("the generated order cannot finish: %s wait on each other", strings.Join(parts, ", "))
}

// gridClock records the step in which each compute action of a table
// finished (-1: not yet).
type gridClock struct {
	t *Table
	computeGrid
}

func newGridClock(t *Table) *gridClock {
	return &gridClock{t: t, computeGrid: newComputeGrid(t.Stages(), t.Microbatches)}
}

// before reports whether the single action of kind k on (s, m) finished in
// a step before step.
func (g *gridClock) before(k Kind, s, m, step int) bool {
	return ranBefore(g.get(k, s, m), step)
}

// ready reports whether compute action a may run in step.
func (g *gridClock) ready(a Action, step int) bool {
	s, m := a.Stage, a.Microbatch
	rt := g.t.RouteOf(m)
	switch a.Kind {
	case Forward:
		return s == rt.First || g.before(Forward, s-1, m, step)
	case Backward, BackwardInput:
		if !g.before(Forward, s, m, step) {
			return false
		}
		return s == rt.Last || g.before(Backward, s+1, m, step) || g.before(BackwardInput, s+1, m, step)
	case BackwardWeight:
		return g.before(BackwardInput, s, m, step)
	}
	return true
}

// finish records that a ran in step.
func (g *gridClock) finish(a Action, step int) {
	g.set(a.Kind, a.Stage, a.Microbatch, step)
}
