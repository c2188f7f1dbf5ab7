package pipeline

import "fmt"

func init() {
	registerFamily(Family{
		Name:     "dualpipev",
		Summary:  "DualPipeV (DeepSeek-V3 arXiv 2412.19437 §3.2, \"cut-in-half\" DualPipe, PyTorch ScheduleDualPipeV): 2 chunks per rank in a V, F&B overlapped",
		Generate: dualPipeV,
		// ScheduleDualPipeV's pipeline_order has no bubbles at all.
		torchOrder: func(t *Table) ([][]Action, bool) { return DropBubbles(t).Rows, true },
	})
}

// dualPipeV builds DualPipeV, the V-shaped form of DeepSeek's DualPipe
// (DeepSeek-V3 technical report, arXiv 2412.19437 §3.2; deepseek-ai/DualPipe
// dualpipev.py, and PyTorch's ScheduleDualPipeV, which follows it). Rank r
// of P holds two chunks in a V, stage r (chunk 0, on the way down) and
// stage 2P-1-r (chunk 1, on the way back), so the 2P stages run on P
// ranks. In DualPipe's README, PP is the number of pipeline stages (even),
// and DualPipeV runs them on PP/2 devices: here PP = 2P, and the README's
// bubble (PP/2 - 1)(F&B + B - 3W) is (P - 1)(F&B + B - 3W) in per-chunk
// times, B being the full backward (sim.ClosedForm). The README's "2×
// parameters per device" is against 1F1B on PP devices; a rank here holds
// two of 2P stages, 1/P of the model, as 1F1B on P ranks does.
//
// With M microbatches, M >= 2P (as both implementations require), rank r
// runs, each phase named by its chunks (0 or 1):
//  1. 2(P-r-1) forwards of chunk 0 (warm-up);
//  2. r+1 pairs: forward of chunk 0, forward of chunk 1;
//  3. P-r-1 triples on chunk 1: I, its W at once, then a forward (the
//     zero-bubble trick fills the wait for the next gradient);
//  4. M-2P+r+1 pairs of overlapped chunks: F of chunk 0 with B of chunk 1,
//     then F of chunk 1 with B of chunk 0, except that the last rank runs
//     its first pair's F and B apart (dualpipev.py does so "to further
//     reduce bubble size");
//  5. P-r-1 pairs: B of chunk 1, then F of chunk 1 with B of chunk 0;
//  6. r+1 pairs of backwards, chunk 1 then chunk 0: the first half full
//     (B), the second half split (I, W deferred), the switch falling after
//     the chunk-1 backward of pair ⌊(r+1)/2⌋ on even ranks and before it on
//     odd ones, so that r+1 of these 2(r+1) backwards are split;
//  7. P-r-1 pairs: the oldest deferred W, then an I of chunk 0;
//  8. the r+1 deferred Ws still owed, oldest first.
//
// Overlapped chunks are OVERLAP_F_B actions whose backward is a full B, as
// in both implementations. The rows are laid out on the idealised
// unit-time grid: every cell, an OVERLAP_F_B included, takes one step (as
// in PyTorch's lockstep check), and a cell runs once the inputs of every
// action it stands for ran in an earlier step.
func dualPipeV(sh Shape) (*Table, error) {
	if err := checkShape(sh); err != nil {
		return nil, err
	}
	p, m := sh.Ranks, sh.Microbatches
	if v := chunksOf(sh, 2); v != 2 {
		return nil, fmt.Errorf("exactly 2 chunks per rank form the V, so chunks must be 2, got %d", v)
	}
	if m < 2*p {
		return nil, fmt.Errorf("at least as many microbatches as stages are needed (M >= 2P = %d), got %d", 2*p, m)
	}
	orders := make([][]Action, p)
	for r := range orders {
		orders[r] = dualPipeVOrder(p, m, r)
	}
	t := &Table{Placement: VPlacement(2*p, p), Microbatches: m, Update: Flush}
	return placeOverlapped(t, orders)
}

// dualPipeVOrder is rank r's order of compute actions (see dualPipeV).
func dualPipeVOrder(p, m, r int) []Action {
	d := dpvRank{stage: [2]int{r, 2*p - 1 - r}}
	return d.phases(p, m, r)
}

// phases emits the eight phases of dualPipeV for rank r of p with m
// microbatches per chunk and returns the order. Full DualPipe runs the
// same phases with p its half rank count, m its microbatches per
// direction and r the rank's distance from the nearer end (dualPipe).
func (d *dpvRank) phases(p, m, r int) []Action {
	last := r == p-1
	for range 2 * (p - r - 1) {
		d.forward(0)
	}
	for range r + 1 {
		d.forward(0)
		d.forward(1)
	}
	for range p - r - 1 {
		d.backward(1, true)
		d.weight()
		d.forward(1)
	}
	for i := range m - 2*p + r + 1 {
		if i == 0 && last {
			d.forward(0)
			d.backward(1, false)
		} else {
			d.overlap(0, 1)
		}
		d.overlap(1, 0)
	}
	for range p - r - 1 {
		d.backward(1, false)
		d.overlap(1, 0)
	}
	split, half := false, (r+1)/2
	for i := range r + 1 {
		if i == half && r%2 == 1 {
			split = true
		}
		d.backward(1, split)
		if i == half && r%2 == 0 {
			split = true
		}
		d.backward(0, split)
	}
	for range p - r - 1 {
		d.weight()
		d.backward(0, true)
	}
	for len(d.deferred) > 0 {
		d.weight()
	}
	return d.order
}

// dpvRank builds one rank's DualPipeV (or DualPipe) order: the stages of
// its two chunks, per chunk the next microbatch to forward and to backward
// (B and I share one count: a microbatch is backwarded once, either way;
// DualPipe starts a chunk of the second direction's pipeline at its first
// microbatch), and the Is whose W is still owed, oldest first.
type dpvRank struct {
	stage        [2]int
	nextF, nextB [2]int
	deferred     []Action // Is without their W yet
	order        []Action
}

func (d *dpvRank) forward(chunk int) {
	d.order = append(d.order, F(d.stage[chunk], d.nextF[chunk]))
	d.nextF[chunk]++
}

// backward emits the next backward of chunk: an I whose W is deferred when
// split, a full B otherwise.
func (d *dpvRank) backward(chunk int, split bool) {
	a := B(d.stage[chunk], d.nextB[chunk])
	if split {
		a = I(a.Stage, a.Microbatch)
		d.deferred = append(d.deferred, a)
	}
	d.order = append(d.order, a)
	d.nextB[chunk]++
}

// weight emits the W of the oldest I still owing one.
func (d *dpvRank) weight() {
	i := d.deferred[0]
	d.deferred = d.deferred[1:]
	d.order = append(d.order, W(i.Stage, i.Microbatch))
}

// overlap emits the forward of chunk f overlapped with the full backward
// of chunk b.
func (d *dpvRank) overlap(f, b int) {
	d.order = append(d.order, Action{Kind: OverlapFB,
		Stage: d.stage[f], Microbatch: d.nextF[f],
		BackStage: d.stage[b], BackMicrobatch: d.nextB[b]})
	d.nextF[f]++
	d.nextB[b]++
}

// placeOverlapped lays out the per-rank orders on the idealised unit-time
// grid as placeUnitTime does (one step a cell, free communication, ranks
// stepped in lock step), for orders that hold OVERLAP_F_B cells: a cell
// runs in the first step in which the inputs of every single action it
// stands for (subActions) finished in a strictly earlier step.
func placeOverlapped(t *Table, orders [][]Action) (*Table, error) {
	g := newGridClock(t)
	at := stepSlots(orders)
	next := make([]int, len(orders))
	left := 0
	for _, o := range orders {
		left += len(o)
	}
	for step := 0; left > 0; step++ {
		moved := false
		for r, order := range orders {
			if next[r] == len(order) {
				continue
			}
			subs := subActions(order[next[r]])
			ready := true
			for _, sub := range subs {
				ready = ready && g.ready(sub, step)
			}
			if !ready {
				continue
			}
			for _, sub := range subs {
				g.finish(sub, step)
			}
			at[r][next[r]] = step
			next[r]++
			left--
			moved = true
		}
		if !moved {
			return nil, stuckOrders(orders, next)
		}
	}
	t.Rows = layOut(orders, at)
	return t, nil
}
