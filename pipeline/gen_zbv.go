package pipeline

import "fmt"

func init() {
	registerFamily(Family{
		Name:       "zb-v",
		Summary:    "zero bubble ZB-V (arXiv 2401.10241 §6, PyTorch ScheduleZBVZeroBubble): 2 chunks per rank in a V placement, I and W split",
		Generate:   zeroBubbleV,
		torchOrder: zbvTorchOrder,
	})
}

// zeroBubbleV builds the ZB-V schedule of the Zero Bubble paper (Qi et al.,
// arXiv 2401.10241, §6) in the order PyTorch's ScheduleZBVZeroBubble gives
// it. Rank r holds two chunks in a V: stage r (chunk 0) and stage 2P-1-r
// (chunk 1). With n = max(M, 2P-1) microbatches the rank runs:
//   - 2(P-r)-1 forwards of chunk 0;
//   - r pairs: a forward of chunk 1, a forward of chunk 0;
//   - P-r triples of chunk 1: forward, I, W;
//   - while chunk 1 lags chunk 0 or chunk 0 has forwards left: a forward of
//     chunk 0 (if left), I and W of chunk 0, then forward, I and W of chunk 1;
//   - r pairs: I of chunk 0, I of chunk 1;
//   - P-r pairs of chunk 0: I, W;
//   - the Ws still owed, chunk 1's first.
//
// Actions of microbatches n would add beyond M are dropped. With
// T_F = T_B = T_W the schedule has no bubble in its steady state and keeps
// about as many activations as 1F1B.
func zeroBubbleV(sh Shape) (*Table, error) {
	if err := checkShape(sh); err != nil {
		return nil, err
	}
	p, m := sh.Ranks, sh.Microbatches
	if v := chunksOf(sh, 2); v != 2 {
		return nil, fmt.Errorf("zb-v places exactly 2 chunks per rank (a V), so chunks must be 2, got %d", v)
	}
	n := max(m, 2*p-1)
	orders := make([][]Action, p)
	for r := range orders {
		for _, a := range zbvOrder(p, r, n) {
			if a.Microbatch < m {
				orders[r] = append(orders[r], a)
			}
		}
	}
	t := &Table{Placement: VPlacement(2*p, p), Microbatches: m, Update: Flush}
	return placeUnitTime(t, orders, nil)
}

// zbvOrder returns rank r's ZB-V order for n microbatches, n >= 2P-1.
func zbvOrder(p, r, n int) []Action {
	z := zbvRank{stage: [2]int{r, 2*p - 1 - r}}
	for range 2*(p-r) - 1 {
		z.emit(Forward, 0)
	}
	for range r {
		z.emit(Forward, 1)
		z.emit(Forward, 0)
	}
	for range p - r {
		z.emit(Forward, 1)
		z.emit(BackwardInput, 1)
		z.emit(BackwardWeight, 1)
	}
	for z.next[Forward][1] < z.next[Forward][0] || z.next[Forward][0] < n {
		if z.next[Forward][0] < n {
			z.emit(Forward, 0)
		}
		z.emit(BackwardInput, 0)
		z.emit(BackwardWeight, 0)
		z.emit(Forward, 1)
		z.emit(BackwardInput, 1)
		z.emit(BackwardWeight, 1)
	}
	for range r {
		z.emit(BackwardInput, 0)
		z.emit(BackwardInput, 1)
	}
	for range p - r {
		z.emit(BackwardInput, 0)
		z.emit(BackwardWeight, 0)
	}
	for z.next[BackwardWeight][1] < z.next[BackwardInput][1] {
		z.emit(BackwardWeight, 1)
	}
	for z.next[BackwardWeight][0] < z.next[BackwardInput][0] {
		z.emit(BackwardWeight, 0)
	}
	return z.order
}

// zbvTorchOrder lays a ZB-V table out as ScheduleZBVZeroBubble's
// pipeline_order: r bubbles before rank r's order for max(M, 2P-1)
// microbatches, whose actions on microbatches M and above are bubbles.
func zbvTorchOrder(t *Table) ([][]Action, bool) {
	p, m := t.Ranks(), t.Microbatches
	rows := make([][]Action, p)
	for r := range rows {
		rows[r] = make([]Action, r)
		for _, a := range zbvOrder(p, r, max(m, 2*p-1)) {
			if a.Microbatch >= m {
				a = Action{}
			}
			rows[r] = append(rows[r], a)
		}
	}
	return rows, true
}

// zbvRank builds one rank's ZB-V order: the stages of its two chunks and,
// per kind and chunk, the next microbatch.
type zbvRank struct {
	stage [2]int
	next  [BackwardWeight + 1][2]int
	order []Action
}

func (z *zbvRank) emit(k Kind, chunk int) {
	z.order = append(z.order, Act(k, z.stage[chunk], z.next[k][chunk]))
	z.next[k][chunk]++
}
