package pipeline

import "fmt"

func init() {
	registerFamily(Family{
		Name:    "interleaved-zb",
		Summary: "interleaved zero bubble (ZB1P), PyTorch's ScheduleInterleavedZeroBubble: V chunks per rank, loop placement, I and W split",
		Generate: func(sh Shape) (*Table, error) {
			return interleavedZeroBubble(sh)
		},
	})
}

// interleavedZeroBubble builds PyTorch's ScheduleInterleavedZeroBubble, the
// ZB1P schedule of the zero-bubble paper (arXiv 2401.10241) on V chunks
// (stages) per rank in loop placement: rank r holds stages r, r+P, r+2P, ...
// The table is compute only, with backward split into I and W.
//
// As in PyTorch, microbatches are handled in rounds of
// microbatches/max(1, microbatches/ranks), so the microbatch count must be
// a multiple of max(1, microbatches/ranks); every other positive shape is
// accepted.
func interleavedZeroBubble(sh Shape) (*Table, error) {
	if err := checkShape(sh); err != nil {
		return nil, err
	}
	p, m, v := sh.Ranks, sh.Microbatches, chunksOf(sh, 2)
	rounds := max(1, m/p)
	if m%rounds != 0 {
		return nil, fmt.Errorf("microbatches (%d) must be a multiple of the number of rounds max(1, microbatches/ranks) = %d", m, rounds)
	}
	z := zb1p{ranks: p, chunks: v, microbatches: m, perRound: m / rounds}
	rows := make([][]Action, p)
	for r := range rows {
		rows[r] = z.rankOps(r)
	}
	rows, err := addForwardBubbles(rows)
	if err != nil {
		return nil, err
	}
	return &Table{Rows: rows, Placement: LoopPlacement(p*v, p), Microbatches: m, Update: Flush}, nil
}

// zb1p holds the shape of one interleaved zero-bubble schedule.
type zb1p struct {
	ranks, chunks, microbatches int
	perRound                    int // microbatches per round
}

// warmup is the number of forwards rank r runs before its first backward:
// (V-1) rounds for the chunks before the last, plus one per hop from the
// last rank, at most every forward the rank has.
func (z zb1p) warmup(r int) int {
	return min((z.chunks-1)*z.perRound+(z.ranks-1-r), z.microbatches*z.chunks)
}

// forwardStage is the stage of rank r's op-th forward: chunks advance every
// round, depth first.
func (z zb1p) forwardStage(r, op int) int {
	return (op/z.perRound%z.chunks)*z.ranks + r
}

// backwardStage is the stage of the backward paired with op on rank r:
// chunks in reverse order, also a round at a time.
func (z zb1p) backwardStage(r, op int) int {
	return (z.chunks-1-(op-z.warmup(r))/z.perRound%z.chunks)*z.ranks + r
}

// rankOps lists rank r's actions before bubbles are inserted for forward
// dependencies: r idle steps, the warm-up forwards and P-r-1 idle steps,
// then pairs of F and I, then the remaining I; from the (r+1)-th backward
// on, each I is followed by the W of the oldest backward without one, and
// the Ws still owed close the row.
func (z zb1p) rankOps(r int) []Action {
	warmup := z.warmup(r)
	total := z.microbatches * z.chunks // forwards, and also backwards, of the rank
	stages := z.ranks * z.chunks
	nextF, nextI, nextW := make([]int, stages), make([]int, stages), make([]int, stages)
	ops := make([]Action, r, r+3*total+z.ranks)
	var backwardOps []int // op numbers of the Is so far, oldest first
	weights := 0          // Ws emitted so far
	emit := func(k Kind, s int, next []int) {
		ops = append(ops, Act(k, s, next[s]))
		next[s]++
	}
	for op := range total + warmup {
		if op < total {
			emit(Forward, z.forwardStage(r, op), nextF)
			if op == warmup-1 {
				ops = append(ops, make([]Action, z.ranks-r-1)...)
			}
		}
		if op < warmup {
			continue
		}
		emit(BackwardInput, z.backwardStage(r, op), nextI)
		backwardOps = append(backwardOps, op)
		if op-warmup >= r {
			emit(BackwardWeight, z.backwardStage(r, backwardOps[weights]), nextW)
			weights++
		}
	}
	for ; weights < len(backwardOps); weights++ {
		emit(BackwardWeight, z.backwardStage(r, backwardOps[weights]), nextW)
	}
	return ops
}

// addForwardBubbles delays every forward until the previous stage's forward
// of the same microbatch ran in an earlier step, stepping all ranks in lock
// step and inserting bubbles where a rank must wait (PyTorch's
// _add_bubbles_to_actions). Only forwards wait: PyTorch's rule for full
// backwards never applies here because the schedule emits I, not B.
func addForwardBubbles(rows [][]Action) ([][]Action, error) {
	out := make([][]Action, len(rows))
	next := make([]int, len(rows))
	seen := map[Action]bool{}
	for {
		var ran []Action
		live, moved := false, false
		for r, row := range rows {
			if next[r] >= len(row) {
				continue
			}
			live = true
			a := row[next[r]]
			if a.Kind == Forward && a.Stage != 0 && !seen[F(a.Stage-1, a.Microbatch)] {
				out[r] = append(out[r], Action{})
				continue
			}
			out[r] = append(out[r], a)
			next[r]++
			moved = true
			if !a.IsBubble() {
				ran = append(ran, a)
			}
		}
		if !live {
			return out, nil
		}
		if !moved {
			return nil, fmt.Errorf("no rank can run its next forward: the forwards wait on each other")
		}
		for _, a := range ran {
			seen[a] = true
		}
	}
}
