package pipeline

func init() {
	registerFamily(Family{
		Name:     "gpipe",
		Summary:  "GPipe (arXiv 1811.06965): every forward, then every backward; one stage per rank",
		Generate: gpipe,
		torchOrder: func(t *Table) ([][]Action, bool) {
			p, m := t.Ranks(), t.Microbatches
			return torchRows(t, func(r, n int) int { return gpipeTorchPad(p, m, r, n) }), true
		},
	})
}

// gpipeTorchPad is the number of bubbles ScheduleGPipe's pipeline_order
// puts before the n-th action of rank r: r before the first forward, and
// 3(P-1-r) before the first backward.
func gpipeTorchPad(p, m, r, n int) int {
	switch n {
	case 0:
		return r
	case m:
		return 3 * (p - 1 - r)
	}
	return 0
}

// gpipe builds the GPipe schedule (Huang et al., arXiv 1811.06965) as
// PyTorch's ScheduleGPipe orders it: each rank runs the forwards of all M
// microbatches, then their backwards, both in microbatch order. Rank r holds
// stage r. Every rank keeps all M microbatches' activations at its peak, and
// the unit-time grid takes 2(M + P - 1) steps (docs/reference.md §2).
func gpipe(sh Shape) (*Table, error) {
	if err := oneStagePerRank(sh); err != nil {
		return nil, err
	}
	p, m := sh.Ranks, sh.Microbatches
	orders := make([][]Action, p)
	for r := range orders {
		order := make([]Action, 0, 2*m)
		for mb := range m {
			order = append(order, F(r, mb))
		}
		for mb := range m {
			order = append(order, B(r, mb))
		}
		orders[r] = order
	}
	return placeUnitTime(&Table{Placement: LoopPlacement(p, p), Microbatches: m, Update: Flush}, orders, nil)
}
