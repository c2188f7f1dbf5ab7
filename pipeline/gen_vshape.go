package pipeline

import (
	"fmt"
	"slices"
)

func init() {
	registerFamily(Family{
		Name:     "v-half",
		Summary:  "V-Half (Qi et al. arXiv 2405.15362): 2 chunks per rank in a V, I and W split, about half of 1F1B's activations",
		Generate: func(sh Shape) (*Table, error) { return vShape(sh, vHalfBlock) },
	})
	registerFamily(Family{
		Name:     "v-min",
		Summary:  "V-Min (Qi et al. arXiv 2405.15362): 2 chunks per rank in a V, I and W split, about a third of 1F1B's activations",
		Generate: func(sh Shape) (*Table, error) { return vShape(sh, vMinBlock) },
	})
}

// vBlockPeriod is the length of the V-shaped building block's repeat, in
// unit steps: a rank runs six actions per microbatch (F, I and W of each
// of its two chunks), so the steady state has no bubble.
const vBlockPeriod = 6

// vBlock gives, for P ranks and rank r, the step of the building block at
// which the rank runs the forward of its chunk 0, the forward of its chunk
// 1, the input gradient of chunk 1 and the input gradient of chunk 0, in
// that order (the order a microbatch visits them on the V). Microbatch k
// runs each at the block's step plus 6k.
type vBlock func(p, r int) [4]int

// vMinBlock is V-Min's building block (Qi et al. 2024, §4, "V-Min"): the
// forwards run down and back up the V one step apart, the input gradients
// likewise right after, so a chunk-0 activation lives about 4P - 2r steps
// and a chunk-1 one about 2r + 2: about 4P steps of one chunk a block,
// 2P/3 chunk activations in all when a block repeats every 6 steps, a third
// of 1F1B's 2P. Where 3 divides P, the input gradients start 2 steps later
// so that no two of a rank's actions fall on one step of the period.
func vMinBlock(p, r int) [4]int {
	gap := 0
	if p%3 == 0 {
		gap = 2
	}
	return [4]int{r, 2*p - 1 - r, 2*p + gap + r, 4*p + gap - 1 - r}
}

// vHalfBlock is V-Half's building block (Qi et al. 2024, §4, "V-Half"):
// the chunk-0 forwards two steps apart, so the block's lifespan is about 6P
// steps of one chunk, P chunk activations at a repeat every 6 steps, half of
// 1F1B's 2P. Where P is even the input gradients start 3 steps later, for
// the same reason as V-Min's gap.
func vHalfBlock(p, r int) [4]int {
	gap := 0
	if p%2 == 0 {
		gap = 3
	}
	return [4]int{2 * r, 3*p - 2 - r, 3*p + gap + 2*r - 1, 6*p + gap - r - 2}
}

// vShape builds a V-shaped schedule of the controllable-memory family
// (Qi, Wan, Amar, Lin, "Pipeline Parallelism with Controllable Memory",
// NeurIPS 2024, arXiv 2405.15362) from its building block. Rank r holds
// stage r (chunk 0) and stage 2P-1-r (chunk 1), as in ZB-V. Each rank's
// order is the block repeated every 6 steps for microbatches 0 to M-1,
// its Ws put in the steps the block leaves free, each the W of the oldest
// input gradient still owing one (the Ws left at the end follow, oldest
// first). The paper then reorders and squeezes: actions move into earlier
// free steps where the peak activations allow (reorderVShape), and the
// rows are each rank's new order placed as early as its inputs allow on
// the idealised unit-time grid. Neither raises a rank's peak.
func vShape(sh Shape, block vBlock) (*Table, error) {
	if err := checkShape(sh); err != nil {
		return nil, err
	}
	p, m := sh.Ranks, sh.Microbatches
	if v := chunksOf(sh, 2); v != 2 {
		return nil, fmt.Errorf("exactly 2 chunks per rank form the V, so chunks must be 2, got %d", v)
	}
	timed := make([][]timedAction, p)
	for r := range timed {
		order, err := vShapeOrder(p, m, r, block(p, r))
		if err != nil {
			return nil, err
		}
		timed[r] = order
	}
	orders := reorderVShape(timed, m)
	t := &Table{Placement: VPlacement(2*p, p), Microbatches: m, Update: Flush}
	return placeUnitTime(t, orders, nil)
}

// vShapeOrder lays rank r's block out over M microbatches (see vShape):
// its actions, each with its step of the repeated block. Two of the rank's
// actions on one step of the period would be a block that does not tile;
// that is a bug of the block, reported as an error.
func vShapeOrder(p, m, r int, at [4]int) ([]timedAction, error) {
	var used [vBlockPeriod]bool
	for _, s := range at {
		if used[s%vBlockPeriod] {
			return nil, fmt.Errorf("the building block of rank %d puts two actions on step %d of its period", r, s%vBlockPeriod)
		}
		used[s%vBlockPeriod] = true
	}
	stage := [2]int{r, 2*p - 1 - r}
	kinds := [4]Action{F(stage[0], 0), F(stage[1], 0), I(stage[1], 0), I(stage[0], 0)}
	cells := make([]timedAction, 0, 4*m)
	for k := range m {
		for i, a := range kinds {
			a.Microbatch = k
			cells = append(cells, timedAction{at[i] + vBlockPeriod*k, a})
		}
	}
	slices.SortFunc(cells, func(x, y timedAction) int { return x.step - y.step })
	order := make([]timedAction, 0, 6*m)
	var owed []Action // input gradients whose W is still owed, oldest first
	step := 0
	for _, c := range cells {
		for ; step < c.step && len(owed) > 0; step++ {
			order = append(order, timedAction{step, W(owed[0].Stage, owed[0].Microbatch)})
			owed = owed[1:]
		}
		step = c.step + 1
		order = append(order, c)
		if c.a.Kind == BackwardInput {
			owed = append(owed, c.a)
		}
	}
	for _, i := range owed {
		order = append(order, timedAction{step, W(i.Stage, i.Microbatch)})
		step++
	}
	return order, nil
}

// timedAction is an action at its step of the repeated block.
type timedAction struct {
	step int
	a    Action
}
