package tune

import (
	"fmt"
	"strings"

	"github.com/pipelab/pipelab/pipeline"
)

// zbKnobs are the heuristic's three binary options, the paper's
// hyperparameters (arXiv 2401.10241, §3): every combination is tried.
type zbKnobs struct {
	// fillWarmup lets the warm-up start one more forward while the rank
	// would otherwise idle before its first backward arrives, even if
	// that forward ends after the arrival (a bubble of less than T_F
	// traded for a delay of the first backward).
	fillWarmup bool
	// skipForwards lets a rank already two or more forwards ahead of the
	// next rank skip a round's forward when running it would delay the
	// round's backward, which is on the critical path.
	skipForwards bool
	// fillSmallGaps puts a W into a gap shorter than T_W even where
	// leaving the gap idle would not raise the largest accumulated bubble
	// of any rank (where it would, the gap is always filled), delaying the
	// action after the gap by the rest of the W.
	fillSmallGaps bool
}

func allZBKnobs() []zbKnobs {
	var out []zbKnobs
	for _, a := range []bool{true, false} {
		for _, b := range []bool{true, false} {
			for _, c := range []bool{true, false} {
				out = append(out, zbKnobs{fillWarmup: a, skipForwards: b, fillSmallGaps: c})
			}
		}
	}
	return out
}

func (k zbKnobs) String() string {
	var on []string
	if k.fillWarmup {
		on = append(on, "fill warm-up")
	}
	if k.skipForwards {
		on = append(on, "skip forwards")
	}
	if k.fillSmallGaps {
		on = append(on, "fill small gaps")
	}
	if len(on) == 0 {
		return "no options"
	}
	return strings.Join(on, ", ")
}

// zbBuilder places the actions of one run of the heuristic, rank by rank,
// timing each as it is placed: an action starts when its rank is free and
// its input has arrived (the producing action's end plus the transfer
// time), so every time is exact for the order built so far, links taken
// as never busy.
//
// The run goes in rounds, one per microbatch i. Round 0 is the warm-up:
// every rank runs its warm-up forwards (warmupCounts), then microbatch 0's
// backward I passes from the last rank to the first. Every later round
// runs a forward on each rank from the first to the last (unless it has
// none left, its upstream has not run that forward, the limit leaves no W
// to free, or skipForwards lets it skip), then the backward I of
// microbatch i from the last rank to the first. Before each forward and
// backward the rank runs its oldest pending Ws: as many as the limit needs
// to make room for a forward, then as many as fit in the gap before the
// action's input arrives, and one more into a gap too short for it if
// leaving the gap would raise the largest accumulated bubble (or always,
// with fillSmallGaps). The Ws still pending close each row.
type zbBuilder struct {
	st     []StageTimes
	m      int
	limit  int
	share  float64 // M_W / M_B
	knobs  zbKnobs
	orders [][]pipeline.Action
	// nf, nb, nw count the F, I and W each rank has run.
	nf, nb, nw []int
	// free is when each rank's stream is free; idle its accumulated
	// bubble since its first action.
	free, idle []float64
	// endF, endB are the end times of F and I, by rank and microbatch.
	endF, endB [][]float64
}

func newZBBuilder(p ZBAutoProblem, k zbKnobs) *zbBuilder {
	n := len(p.Stages)
	b := &zbBuilder{
		st: p.Stages, m: p.Microbatches, limit: p.limit(), share: p.share(), knobs: k,
		orders: make([][]pipeline.Action, n),
		nf:     make([]int, n), nb: make([]int, n), nw: make([]int, n),
		free: make([]float64, n), idle: make([]float64, n),
		endF: make([][]float64, n), endB: make([][]float64, n),
	}
	for r := range n {
		b.orders[r] = make([]pipeline.Action, 0, 3*p.Microbatches)
		b.endF[r] = make([]float64, p.Microbatches)
		b.endB[r] = make([]float64, p.Microbatches)
	}
	return b
}

// build runs the heuristic and returns its table, in row order without
// bubbles.
func (b *zbBuilder) build() (*pipeline.Table, error) {
	p := len(b.st)
	b.warmup()
	for i := 1; i < b.m; i++ {
		for r := range p {
			if err := b.roundForward(r, i); err != nil {
				return nil, err
			}
		}
		for r := p - 1; r >= 0; r-- {
			b.backward(r)
		}
	}
	for r := range p {
		for b.nw[r] < b.m {
			b.put(r, pipeline.BackwardWeight)
		}
	}
	return &pipeline.Table{Rows: b.orders, Placement: pipeline.LoopPlacement(p, p), Microbatches: b.m, Update: pipeline.Flush}, nil
}

// warmup is round 0: the warm-up forwards of every rank, then the
// backward of microbatch 0 from the last rank to the first.
func (b *zbBuilder) warmup() {
	p := len(b.st)
	counts := b.warmupCounts()
	for r := range p {
		for b.nf[r] < counts[r] {
			b.put(r, pipeline.Forward)
		}
	}
	for r := p - 1; r >= 0; r-- {
		b.backward(r)
	}
}

// warmupCounts decides how many forwards each rank runs before its first
// backward, from the last rank up: the last rank one (its backward is
// ready at once), every other rank at least one more than the rank below
// (the paper's invariant, which keeps the next rank fed) and then more
// while the limit allows and the next forward would end before (with
// fillWarmup: start before) microbatch 0's backward arrives; then, from the
// first rank down, fewer than the rank above (when the limit caps that
// one), so that no rank waits on its upstream's forwards. Forwards are
// timed as the warm-up runs them, each rank's back to back as their inputs
// arrive, so the estimates are the placement's times.
func (b *zbBuilder) warmupCounts() []int {
	p := len(b.st)
	most := min(b.limit, b.m)
	// ends[r][k] is when F(r, k) ends if every rank runs most forwards.
	ends := make([][]float64, p)
	for r := range p {
		ends[r] = make([]float64, most)
		free := 0.0
		for k := range most {
			start := free
			if r > 0 {
				start = max(start, ends[r-1][k]+b.st[r-1].Comm)
			}
			free = start + b.st[r].TF
			ends[r][k] = free
		}
	}
	counts := make([]int, p)
	counts[p-1] = 1
	// done is the end of I(r+1, 0), the backward below.
	done := ends[p-1][0] + b.st[p-1].TB
	for r := p - 2; r >= 0; r-- {
		arrive := done + b.st[r].Comm
		n := 1
		for n < most {
			fits := ends[r][n] <= arrive
			if b.knobs.fillWarmup {
				fits = ends[r][n]-b.st[r].TF < arrive
			}
			if n > counts[r+1] && !fits {
				break
			}
			n++
		}
		counts[r] = n
		done = max(ends[r][n-1], arrive) + b.st[r].TB
	}
	// A rank runs fewer forwards than the one above it unless both have
	// run them all: its forwards wait for that rank's, which the limit
	// may cap.
	for r := 1; r < p; r++ {
		if counts[r] >= counts[r-1] && counts[r] < b.m {
			counts[r] = max(1, counts[r-1]-1)
		}
	}
	return counts
}

// roundForward runs rank r's forward of round i, if it has one to run.
func (b *zbBuilder) roundForward(r, i int) error {
	switch {
	case b.nf[r] == b.m:
		return nil
	case r > 0 && b.nf[r-1] <= b.nf[r]:
		return nil // the upstream forward has not run
	}
	required := b.nf[r] == i // this round's backward needs it
	forced, ok := b.forcedWs(r)
	if !ok {
		if required {
			return fmt.Errorf("tune: zb-auto: rank %d cannot free memory for forward %d within %d activations", r, b.nf[r], b.limit)
		}
		return nil
	}
	if !required && b.knobs.skipForwards && r < len(b.st)-1 && b.nf[r] >= b.nf[r+1]+2 && b.delaysBackward(r, forced) {
		return nil
	}
	for range forced {
		b.put(r, pipeline.BackwardWeight)
	}
	b.fillGap(r, b.ready(r, pipeline.Forward))
	b.put(r, pipeline.Forward)
	return nil
}

// held is the activations rank r holds, in M_B: a forward adds 1, its I
// frees all but the share W needs and its W the rest.
func (b *zbBuilder) held(r int) float64 {
	return float64(b.nf[r]) - float64(b.nb[r])*(1-b.share) - float64(b.nw[r])*b.share
}

// forcedWs returns how many of its pending Ws rank r must run to make room
// for a forward within the limit, or false if all of them would not.
func (b *zbBuilder) forcedWs(r int) (int, bool) {
	room := float64(b.limit) - 1 + 1e-9
	for n := range b.nb[r] - b.nw[r] + 1 {
		if b.held(r)-float64(n)*b.share <= room {
			return n, true
		}
	}
	return 0, false
}

// delaysBackward estimates whether a forward on rank r now, after forced
// Ws, would still run when the round's backward arrives from rank r+1
// (which will run a forward, if it has one, and then that backward).
func (b *zbBuilder) delaysBackward(r, forced int) bool {
	below := r + 1
	arrive := b.free[below] + b.st[below].TB + b.st[r].Comm
	if b.nf[below] < b.m {
		arrive += b.st[below].TF
	}
	end := b.free[r] + float64(forced)*b.st[r].TW + b.st[r].TF
	return end > arrive
}

// backward runs rank r's next input-gradient backward I, after the Ws that
// fit before its input arrives.
func (b *zbBuilder) backward(r int) {
	b.fillGap(r, b.ready(r, pipeline.BackwardInput))
	b.put(r, pipeline.BackwardInput)
}

// fillGap runs pending Ws on rank r before an action whose input arrives
// at ready: those that end by then, and one more into the rest of the gap
// if leaving it idle would raise the largest accumulated bubble, or if
// fillSmallGaps.
func (b *zbBuilder) fillGap(r int, ready float64) {
	tw := b.st[r].TW
	for b.nw[r] < b.nb[r] && b.free[r]+tw <= ready {
		b.put(r, pipeline.BackwardWeight)
	}
	if b.nw[r] == b.nb[r] || b.free[r] >= ready {
		return
	}
	if b.knobs.fillSmallGaps || b.idle[r]+ready-b.free[r] > b.maxIdle() {
		b.put(r, pipeline.BackwardWeight)
	}
}

func (b *zbBuilder) maxIdle() float64 {
	most := 0.0
	for _, v := range b.idle {
		most = max(most, v)
	}
	return most
}

// ready is when the input of rank r's next action of kind k has arrived.
func (b *zbBuilder) ready(r int, k pipeline.Kind) float64 {
	switch k {
	case pipeline.Forward:
		if r == 0 {
			return 0
		}
		return b.endF[r-1][b.nf[r]] + b.st[r-1].Comm
	case pipeline.BackwardInput:
		mb := b.nb[r]
		at := b.endF[r][mb]
		if r < len(b.st)-1 {
			at = max(at, b.endB[r+1][mb]+b.st[r].Comm)
		}
		return at
	}
	return b.endB[r][b.nw[r]]
}

// put appends rank r's next action of kind k to its order and times it.
func (b *zbBuilder) put(r int, k pipeline.Kind) {
	start := max(b.free[r], b.ready(r, k))
	if len(b.orders[r]) > 0 {
		b.idle[r] += start - b.free[r]
	}
	st := b.st[r]
	var a pipeline.Action
	switch k {
	case pipeline.Forward:
		a = pipeline.F(r, b.nf[r])
		b.free[r] = start + st.TF
		b.endF[r][b.nf[r]] = b.free[r]
		b.nf[r]++
	case pipeline.BackwardInput:
		a = pipeline.I(r, b.nb[r])
		b.free[r] = start + st.TB
		b.endB[r][b.nb[r]] = b.free[r]
		b.nb[r]++
	default:
		a = pipeline.W(r, b.nw[r])
		b.free[r] = start + st.TW
		b.nw[r]++
	}
	b.orders[r] = append(b.orders[r], a)
}
