package pipeline

func init() {
	registerFamily(Family{
		Name:     "1f1b",
		Summary:  "1F1B (PipeDream-Flush, Megatron-LM): P-r-1 warm-up forwards on rank r, then one forward one backward",
		Generate: oneFOneB,
	})
}

// oneFOneB builds the synchronous one-forward-one-backward schedule
// (PipeDream-Flush, Narayanan et al. arXiv 2006.09503) as Megatron-LM's
// forward_backward_pipelining_without_interleaving runs it: rank r holds
// stage r, runs min(P-r-1, M) warm-up forwards, then alternates one forward
// and one backward until the forwards are done, and ends with the remaining
// backwards. At most P-r microbatches are in flight on rank r, and the
// unit-time grid takes 2(M + P - 1) steps like GPipe (docs/reference.md §2).
func oneFOneB(sh Shape) (*Table, error) {
	if err := oneStagePerRank(sh); err != nil {
		return nil, err
	}
	p, m := sh.Ranks, sh.Microbatches
	orders := make([][]Action, p)
	for r := range orders {
		warmup := oneFOneBWarmup(p, r, m)
		order := make([]Action, 0, 2*m)
		for mb := range warmup {
			order = append(order, F(r, mb))
		}
		for k := range m - warmup {
			order = append(order, F(r, warmup+k), B(r, k))
		}
		for mb := m - warmup; mb < m; mb++ {
			order = append(order, B(r, mb))
		}
		orders[r] = order
	}
	return placeUnitTime(&Table{Placement: LoopPlacement(p, p), Microbatches: m, Update: Flush}, orders, nil)
}

// oneFOneBWarmup is Megatron-LM's num_warmup_microbatches for rank r of p:
// one forward per rank after it, at most all m.
func oneFOneBWarmup(p, r, m int) int { return min(p-r-1, m) }
