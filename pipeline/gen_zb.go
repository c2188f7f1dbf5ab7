package pipeline

func init() {
	registerFamily(Family{
		Name:    "zb-h1",
		Summary: "zero bubble ZB-H1 (arXiv 2401.10241): 1F1B with B split into I and W, Ws delayed to fill the drain; peak P in flight",
		Generate: func(sh Shape) (*Table, error) {
			return zeroBubbleH(sh, func(p, r int) int { return p - r }, func(p int) int { return p })
		},
	})
	registerFamily(Family{
		Name:    "zb-h2",
		Summary: "zero bubble ZB-H2 (arXiv 2401.10241): 2(P-r)-1 warm-up forwards, Ws fill every bubble; peak 2P-1 in flight",
		Generate: func(sh Shape) (*Table, error) {
			return zeroBubbleH(sh, func(p, r int) int { return 2*(p-r) - 1 }, func(p int) int { return 2*p - 1 })
		},
	})
}

// zeroBubbleH builds the handcrafted schedules of the Zero Bubble paper
// (Qi et al., arXiv 2401.10241, §3.1 and Figure 3), with every backward
// split into I (input gradient, on the critical path) and W (weight
// gradient, free to move). Rank r holds stage r. It runs warmup(P, r)
// forwards (at most M), then repeats: an I; a W of its oldest pending
// microbatch if its in-flight microbatches (F done, W not) have reached the
// cap, or if no forward is left; a forward if one is left. The Ws still
// owed close the row.
//
// ZB-H1 warms up with P-r forwards under a cap of P, which is 1F1B with
// each rank's Ws delayed by r microbatches: the peak memory of 1F1B (P
// microbatches, now on every rank) and a bubble of (P-1)(T_F + T_B - T_W).
// ZB-H2 warms up with 2(P-r)-1 forwards under a cap of 2P-1: with
// T_F = T_B = T_W and at least 2P-1 microbatches every rank works without a
// gap from its first action to its last.
func zeroBubbleH(sh Shape, warmupOf func(p, r int) int, capOf func(p int) int) (*Table, error) {
	if err := oneStagePerRank(sh); err != nil {
		return nil, err
	}
	p, m := sh.Ranks, sh.Microbatches
	limit := capOf(p)
	orders := make([][]Action, p)
	for r := range orders {
		order := make([]Action, 0, 3*m)
		f, b, w := 0, 0, 0
		for ; f < min(warmupOf(p, r), m); f++ {
			order = append(order, F(r, f))
		}
		for ; b < m; b++ {
			order = append(order, I(r, b))
			if f == m || f-w == limit {
				order = append(order, W(r, w))
				w++
			}
			if f < m {
				order = append(order, F(r, f))
				f++
			}
		}
		for ; w < m; w++ {
			order = append(order, W(r, w))
		}
		orders[r] = order
	}
	return placeUnitTime(&Table{Placement: LoopPlacement(p, p), Microbatches: m, Update: Flush}, orders, nil)
}
