package pipeline

import (
	"cmp"
	"fmt"
	"slices"
)

func init() {
	registerFamily(Family{
		Name:     "chimera",
		Summary:  "Chimera (arXiv 2107.06925): two bidirectional pipelines on replicated stages; P even, M a multiple of P",
		Generate: chimera,
	})
}

// chimera builds the bidirectional schedule of Chimera (Li and Hoefler,
// arXiv 2107.06925) with two pipelines. Each rank holds two replicas of
// model stages: the down pipeline runs model stage s on rank s (table stage
// s), the up pipeline runs model stage s on rank P-1-s (table stage P+s), so
// the table has 2P stages and two Routes. Microbatches come in basic units
// of P (the paper's N = D): in unit k, microbatches kP..kP+P/2-1 take the
// down pipeline and the other P/2 the up pipeline; units are concatenated
// directly (the paper's "direct concatenation").
//
// Within a unit, the j-th microbatch of either pipeline enters two steps
// after the (j-1)-th, so the two pipelines never meet on a rank: its
// forward on (pipeline) stage s runs at step 2j+s and its backward on
// stage s at step 2j+P+(P-1-s), right after the forward leaves the last
// stage. Unit k starts 2Pk steps after the first. With T_F = T_B = 1 every
// rank idles P-2 steps (the paper's D-2 bubbles) and the grid takes
// 2M + P - 2 steps.
func chimera(sh Shape) (*Table, error) {
	if err := oneStagePerRank(sh); err != nil {
		return nil, err
	}
	p, m := sh.Ranks, sh.Microbatches
	switch {
	case p%2 != 0:
		return nil, fmt.Errorf("the two pipelines need an even number of ranks (stages): got P = %d", p)
	case m%p != 0:
		return nil, fmt.Errorf("microbatches must be a multiple of ranks (M mod P = 0), in units of P/2 per pipeline: got M = %d, P = %d", m, p)
	}
	t := twoPipelines(p, m)
	step := map[Action]int{}
	orders := make([][]Action, p)
	for mb := range m {
		unit, pos := mb/p, mb%p
		pipe, j := pos/(p/2), pos%(p/2)
		t.MicrobatchRoute[mb] = pipe
		start := 2*p*unit + 2*j
		for s := range p {
			f, b := F(pipe*p+s, mb), B(pipe*p+s, mb)
			step[f] = start + s
			step[b] = start + p + (p - 1 - s)
			r := t.Placement[f.Stage]
			orders[r] = append(orders[r], f, b)
		}
	}
	for _, order := range orders {
		slices.SortStableFunc(order, func(a, b Action) int { return cmp.Compare(step[a], step[b]) })
	}
	return placeUnitTime(t, orders, func(a Action) int { return step[a] })
}

// twoPipelines is the empty table of two pipelines in opposite directions
// over P ranks that hold every model stage twice, as Chimera and DualPipe
// run them: the down pipeline's model stage s is table stage s on rank s,
// the up pipeline's is table stage P+s on rank P-1-s; every microbatch
// takes route 0 (down) until the caller says otherwise.
func twoPipelines(p, m int) *Table {
	t := &Table{
		Placement:       make([]int, 2*p),
		Microbatches:    m,
		Update:          Flush,
		Routes:          []Route{{0, p - 1}, {p, 2*p - 1}},
		MicrobatchRoute: make([]int, m),
	}
	for s := range p {
		t.Placement[s] = s
		t.Placement[p+s] = p - 1 - s
	}
	return t
}
