package pipeline

import "fmt"

func init() {
	registerFamily(Family{
		Name:     "interleaved-1f1b",
		Summary:  "interleaved 1F1B (Megatron-LM, arXiv 2104.04473): V chunks per rank in loop placement, depth-first groups of P microbatches",
		Generate: interleaved1F1B,
	})
}

// interleaved1F1B builds Megatron-LM's interleaved one-forward-one-backward
// schedule (Narayanan et al., arXiv 2104.04473;
// forward_backward_pipelining_with_interleaving). Each rank holds V chunks
// (default 2) in loop placement: rank r holds stages r, r+P, ..., r+(V-1)P.
// A rank's M·V chunk-forwards go depth first in groups of P microbatches:
// its k-th forward is on chunk (k mod PV)/P, its k-th backward on chunk
// V-1-(k mod PV)/P, each chunk taking its microbatches in order. Rank r runs
// min(2(P-r-1) + (V-1)P, MV) warm-up forwards, then alternates one forward
// and one backward, and ends with the remaining backwards.
//
// As in the paper and Megatron-LM before microbatch groups were made
// configurable, M must be a multiple of P. (Megatron-LM once also ran every
// forward first when M == P; this generator, like current Megatron-LM and
// PyTorch's ScheduleInterleaved1F1B, does not.)
func interleaved1F1B(sh Shape) (*Table, error) {
	if err := checkShape(sh); err != nil {
		return nil, err
	}
	p, m, v := sh.Ranks, sh.Microbatches, chunksOf(sh, 2)
	if m%p != 0 {
		return nil, fmt.Errorf("microbatches must be a multiple of ranks (M mod P = 0): got M = %d, P = %d", m, p)
	}
	total := m * v
	orders := make([][]Action, p)
	for r := range orders {
		forwardStage := func(k int) int { return (k%(p*v)/p)*p + r }
		backwardStage := func(k int) int { return (v-1-k%(p*v)/p)*p + r }
		nextF, nextB := make(stageCounter, p*v), make(stageCounter, p*v)
		fwd := func(k int) Action { s := forwardStage(k); return F(s, nextF.next(s)) }
		bwd := func(k int) Action { s := backwardStage(k); return B(s, nextB.next(s)) }
		warmup := interleavedWarmup(p, r, v, m)
		order := make([]Action, 0, 2*total)
		for k := range warmup {
			order = append(order, fwd(k))
		}
		for k := range total - warmup {
			order = append(order, fwd(warmup+k), bwd(k))
		}
		for k := total - warmup; k < total; k++ {
			order = append(order, bwd(k))
		}
		orders[r] = order
	}
	t := &Table{Placement: LoopPlacement(p*v, p), Microbatches: m, Update: Flush}
	return placeUnitTime(t, orders, nil)
}

// interleavedWarmup is Megatron-LM's warm-up chunk-forward count of rank r:
// two per rank after it plus V-1 groups of P, at most all M·V.
func interleavedWarmup(p, r, v, m int) int { return min(2*(p-r-1)+(v-1)*p, m*v) }
