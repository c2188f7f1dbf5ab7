package pipeline

func init() {
	registerFamily(Family{
		Name:     "1f1b",
		Summary:  "1F1B (PipeDream-Flush, Megatron-LM): P-r-1 warm-up forwards on rank r, then one forward one backward",
		Generate: oneFOneB,
		torchOrder: func(t *Table) ([][]Action, bool) {
			p, m := t.Ranks(), t.Microbatches
			if m < p {
				return nil, false // Schedule1F1B refuses fewer microbatches than stages
			}
			return torchRows(t, func(r, n int) int { return oneFOneBTorchPad(p, m, r, n) }), true
		},
	})
}

// oneFOneBTorchPad is the number of bubbles Schedule1F1B's pipeline_order
// puts before the n-th action of rank r (M >= P): r before the first, 2w
// after the w = P-1-r warm-up forwards, and one before each of the w
// cool-down backwards, the last 2M-w.. actions.
func oneFOneBTorchPad(p, m, r, n int) int {
	w := p - 1 - r
	pad := 0
	if n == 0 {
		pad += r
	}
	if n == w {
		pad += 2 * w
	}
	if n >= 2*m-w {
		pad++
	}
	return pad
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
