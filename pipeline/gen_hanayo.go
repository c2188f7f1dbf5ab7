package pipeline

import (
	"cmp"
	"fmt"
	"slices"
)

func init() {
	registerFamily(Family{
		Name:     "hanayo",
		Summary:  "Hanayo (arXiv 2308.15762): wave-like placement, V chunks per rank (V even), Chimera's timing on one model copy",
		Generate: hanayo,
	})
}

// hanayo builds a wave-like schedule after Hanayo (Liu et al., arXiv
// 2308.15762), which keeps Chimera's bidirectional timing without Chimera's
// second copy of the model. Each rank holds V chunks (default 2, V even,
// i.e. V/2 waves) in a zig-zag: the model runs down ranks 0..P-1, back up
// P-1..0, and down again for the next wave (PyTorch's "v" placement
// generalised to V/2 waves).
//
// The paper gives the schedule as figures, not as an algorithm; this is
// our reading of them. Microbatch j enters two steps after microbatch j-1,
// as each of Chimera's pipelines does, so its forward on stage s would run
// at step 2j+s, and its backward on stage s at step 2j+VP+(VP-1-s), right
// after its forward leaves the last stage. Each rank runs its actions in
// the order of those steps (a backward before a forward at the same step)
// and no earlier than them; where two of them meet on a rank, the later in
// that order waits, so the steady state becomes one forward, one backward.
func hanayo(sh Shape) (*Table, error) {
	if err := checkShape(sh); err != nil {
		return nil, err
	}
	p, m, v := sh.Ranks, sh.Microbatches, chunksOf(sh, 2)
	if v%2 != 0 {
		return nil, fmt.Errorf("a wave goes down the ranks and back up, so chunks must be even: got V = %d", v)
	}
	stages := v * p
	t := &Table{Placement: VPlacement(stages, p), Microbatches: m, Update: Flush}
	step := map[Action]int{}
	orders := make([][]Action, p)
	for mb := range m {
		for s := range stages {
			f, b := F(s, mb), B(s, mb)
			step[f] = 2*mb + s
			step[b] = 2*mb + stages + (stages - 1 - s)
			r := t.Placement[s]
			orders[r] = append(orders[r], f, b)
		}
	}
	for _, order := range orders {
		slices.SortStableFunc(order, func(a, b Action) int {
			if c := cmp.Compare(step[a], step[b]); c != 0 {
				return c
			}
			return cmp.Compare(b.Kind, a.Kind) // B (2) before F (1)
		})
	}
	return placeUnitTime(t, orders, func(a Action) int { return step[a] })
}
