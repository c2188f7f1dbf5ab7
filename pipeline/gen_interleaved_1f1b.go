package pipeline

import "fmt"

func init() {
	registerFamily(Family{
		Name:     "interleaved-1f1b",
		Summary:  "interleaved 1F1B (Megatron-LM, arXiv 2104.04473): V chunks per rank in loop placement, depth-first groups of M/max(1, ⌊M/P⌋) microbatches (P when P divides M), as PyTorch runs it",
		Generate: interleaved1F1B,
		torchOrder: func(t *Table) ([][]Action, bool) {
			p, m, v := t.Ranks(), t.Microbatches, t.Stages()/t.Ranks()
			g, err := interleavedGroup(p, m)
			if err != nil {
				return nil, false
			}
			return torchRows(t, func(r, n int) int { return interleavedTorchPad(p, m, v, g, r, n) }), true
		},
	})
}

// interleavedTorchPad is the number of bubbles ScheduleInterleaved1F1B's
// pipeline_order (_get_1f1b_rank_ops) puts before the n-th action of rank
// r: r before the first; after the w warm-up forwards, enough for the first
// backward to come at step PV + 2(P-1-r), none if it is late already; and
// one before each of the w cool-down backwards, the last ones of the row.
func interleavedTorchPad(p, m, v, g, r, n int) int {
	w, total := interleavedWarmup(p, r, v, m, g), m*v
	pad := 0
	if n == 0 {
		pad += r
	}
	if n == w && w > 0 {
		pad += max(0, p*v+2*(p-1-r)-(w+r))
	}
	if n >= 2*total-w {
		pad++
	}
	return pad
}

// interleaved1F1B builds Megatron-LM's interleaved one-forward-one-backward
// schedule (Narayanan et al., arXiv 2104.04473;
// forward_backward_pipelining_with_interleaving). Each rank holds V chunks
// (default 2) in loop placement: rank r holds stages r, r+P, ..., r+(V-1)P.
// A rank's M·V chunk-forwards go depth first in groups of G microbatches:
// its k-th forward is on chunk (k/G) mod V, its k-th backward on chunk
// V-1-(k/G) mod V, each chunk taking its microbatches in order. Rank r runs
// min(2(P-r-1) + (V-1)G, MV) warm-up forwards, then alternates one forward
// and one backward, and ends with the remaining backwards.
//
// G is the group size of PyTorch's ScheduleInterleaved1F1B: the M
// microbatches run in max(1, ⌊M/P⌋) rounds of G = M/rounds, so M must be a
// multiple of the number of rounds (P = 4 takes M = 3, 10 and 15, in groups
// of 3, 5 and 5, and refuses M = 9). When M is a multiple of P, G = P, the
// paper's and Megatron-LM's groups. (Megatron-LM once also ran every
// forward first when M == P; this generator, like current Megatron-LM and
// PyTorch, does not.)
func interleaved1F1B(sh Shape) (*Table, error) {
	if err := checkShape(sh); err != nil {
		return nil, err
	}
	p, m, v := sh.Ranks, sh.Microbatches, chunksOf(sh, 2)
	g, err := interleavedGroup(p, m)
	if err != nil {
		return nil, err
	}
	orders := make([][]Action, p)
	for r := range orders {
		orders[r] = interleavedOrder(p, m, v, g, r, 0, false)
	}
	t := &Table{Placement: LoopPlacement(p*v, p), Microbatches: m, Update: Flush}
	return placeUnitTime(t, orders, nil)
}

// interleavedOrder is rank r's interleaved 1F1B order (see
// interleaved1F1B) with extra more warm-up forwards, at most all M·V;
// combined merges each steady-state pair, a forward then a backward, into
// one OVERLAP_F_B (combined1F1B).
func interleavedOrder(p, m, v, g, r, extra int, combined bool) []Action {
	total := m * v
	forwardStage := func(k int) int { return (k/g%v)*p + r }
	backwardStage := func(k int) int { return (v-1-k/g%v)*p + r }
	nextF, nextB := make(stageCounter, p*v), make(stageCounter, p*v)
	fwd := func(k int) Action { s := forwardStage(k); return F(s, nextF.next(s)) }
	bwd := func(k int) Action { s := backwardStage(k); return B(s, nextB.next(s)) }
	warmup := min(interleavedWarmup(p, r, v, m, g)+extra, total)
	order := make([]Action, 0, 2*total)
	for k := range warmup {
		order = append(order, fwd(k))
	}
	for k := range total - warmup {
		f, b := fwd(warmup+k), bwd(k)
		if combined {
			order = append(order, Action{Kind: OverlapFB, Stage: f.Stage, Microbatch: f.Microbatch,
				BackStage: b.Stage, BackMicrobatch: b.Microbatch})
			continue
		}
		order = append(order, f, b)
	}
	for k := total - warmup; k < total; k++ {
		order = append(order, bwd(k))
	}
	return order
}

// interleavedGroup returns the microbatches per round of PyTorch's
// ScheduleInterleaved1F1B for p ranks and m microbatches, or why it refuses
// m.
func interleavedGroup(p, m int) (int, error) {
	rounds := max(1, m/p)
	if m%rounds != 0 {
		return 0, fmt.Errorf("microbatches (%d) must be a multiple of the number of rounds max(1, microbatches/ranks) = %d", m, rounds)
	}
	return m / rounds, nil
}

// interleavedWarmup is the warm-up chunk-forward count of rank r (Megatron-LM
// with groups of g = P, PyTorch's _get_warmup_ops in general): two per rank
// after it plus V-1 groups, at most all M·V.
func interleavedWarmup(p, r, v, m, g int) int { return min(2*(p-r-1)+(v-1)*g, m*v) }
