package pipeline

func init() {
	registerFamily(Family{
		Name:     "looped-bfs",
		Summary:  "looped breadth-first (PyTorch ScheduleLoopedBFS, arXiv 2211.05953): V chunks per rank, each chunk's forwards for all microbatches at once",
		Generate: loopedBFS,
		torchOrder: func(t *Table) ([][]Action, bool) {
			p, forwards := t.Ranks(), t.Stages()/t.Ranks()*t.Microbatches
			return torchRows(t, func(r, n int) int {
				switch n {
				case 0:
					return r
				case forwards:
					return 2 * (p - 1 - r) // ScheduleLoopedBFS: two per hop to the last rank
				}
				return 0
			}), true
		},
	})
}

// loopedBFS builds the breadth-first looped schedule (Lamy-Poirier, arXiv
// 2211.05953) as PyTorch's ScheduleLoopedBFS orders it. Each rank holds V
// chunks (default 2) in loop placement, rank r holding stages r, r+P, ...;
// it runs the forwards of every microbatch on its first chunk, then on its
// next chunk, and so on, then the backwards chunk by chunk from its last,
// each chunk's microbatches in reverse order.
func loopedBFS(sh Shape) (*Table, error) {
	if err := checkShape(sh); err != nil {
		return nil, err
	}
	p, m, v := sh.Ranks, sh.Microbatches, chunksOf(sh, 2)
	orders := make([][]Action, p)
	for r := range orders {
		order := make([]Action, 0, 2*m*v)
		for c := range v {
			for mb := range m {
				order = append(order, F(c*p+r, mb))
			}
		}
		for c := v - 1; c >= 0; c-- {
			for mb := m - 1; mb >= 0; mb-- {
				order = append(order, B(c*p+r, mb))
			}
		}
		orders[r] = order
	}
	t := &Table{Placement: LoopPlacement(p*v, p), Microbatches: m, Update: Flush}
	return placeUnitTime(t, orders, nil)
}
