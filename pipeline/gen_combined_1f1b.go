package pipeline

import "fmt"

func init() {
	registerFamily(Family{
		Name:     "combined-1f1b",
		Summary:  "combined 1F1B (Megatron-LM combined_1f1b.py, --overlap-moe-expert-parallel-comm): interleaved 1F1B with one more warm-up forward and each steady-state F and B overlapped",
		Generate: combined1F1B,
	})
}

// combined1F1B builds Megatron-LM's combined 1F1B: interleaved 1F1B
// (interleaved1F1B: V chunks per rank, default 2, loop placement, depth
// first in groups of G) run with --overlap-moe-expert-parallel-comm, where
// each step of the steady state runs the forward of one microbatch and the
// backward of another as one combined step (combined_1f1b.py), so that the
// expert-parallel all-to-all of one hides behind the computation of the
// other. Megatron-LM's get_pp_rank_microbatches gives every rank one more
// warm-up forward in that mode, min(2(P-r-1) + (V-1)G + 1, MV), so that the
// forward and backward of every combined step are independent; the steady
// state's pairs are OVERLAP_F_B cells (the backward a full B), the warm-up
// forwards and cool-down backwards plain F and B.
//
// Megatron-LM overlaps the all-to-all this way under virtual pipeline
// parallelism; chunks below 2 are refused.
func combined1F1B(sh Shape) (*Table, error) {
	if err := checkShape(sh); err != nil {
		return nil, err
	}
	p, m, v := sh.Ranks, sh.Microbatches, chunksOf(sh, 2)
	if v < 2 {
		return nil, fmt.Errorf("the combined steps pair chunks of an interleaved schedule, so chunks must be at least 2, got %d", v)
	}
	g, err := interleavedGroup(p, m)
	if err != nil {
		return nil, err
	}
	orders := make([][]Action, p)
	for r := range orders {
		orders[r] = interleavedOrder(p, m, v, g, r, 1, true)
	}
	t := &Table{Placement: LoopPlacement(p*v, p), Microbatches: m, Update: Flush}
	return placeOverlapped(t, orders)
}
