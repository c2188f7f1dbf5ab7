package optim

import (
	"fmt"

	"github.com/pipelab/pipelab/objectives"
)

// RPD is randomized PipeDream (docs/reference.md §1.4): at iteration k the
// delay model picks a stage s, a microbatch and one delay d_j per stage;
// z takes block j from the iterate after k - d_j updates, and block s
// alone steps, x_s ← x_s - γ∇_s f(z; ξ). Each block keeps only the versions
// a lookup can still reach: those made within δ updates of its newest and
// the one current before them (about δ/S + 1), δ being the model's Bound.
type RPD struct {
	Delays DelayModel
	// Iterations is K; zero means the model's Len (N·S for Uniform, the
	// row count for a DelayTable).
	Iterations int
}

// Name returns "rpd".
func (RPD) Name() string { return "rpd" }

func (p RPD) replay(r *run) error {
	if p.Delays == nil {
		return fmt.Errorf("%w: RPD needs a delay model", ErrSettings)
	}
	iters := p.Iterations
	if iters == 0 {
		iters = p.Delays.Len()
	}
	if iters < 1 {
		return fmt.Errorf("%w: RPD with %d iterations", ErrSettings, iters)
	}
	r.res.Microbatches = iters
	x := r.obj.Init()
	// Lookups reach back at most δ updates, and never before the start:
	// the bucket index spans the shorter, so that a δ far beyond the run
	// costs no more buckets than the run has updates.
	hist := make([]*versions, r.stages)
	for s := range hist {
		hist[s] = newVersions(p.Delays.Bound()+1, r.block(x, s))
		hist[s].index(min(p.Delays.Bound(), iters), r.stages)
	}
	if err := r.begin(iters, x, 1); err != nil {
		return err
	}
	current := func() []float64 { return x }
	rng := objectives.NewRand(r.set.Seed, objectives.StreamSampling)
	it := Iteration{Delays: make([]int, r.stages)}
	grad := newStaleGradient(r)
	for k := 0; k < iters; k++ {
		if err := p.Delays.Draw(k, &it, rng); err != nil {
			return err
		}
		if it.Stage < 0 || it.Stage >= r.stages || it.Microbatch < 0 {
			return fmt.Errorf("%w: iteration %d: stage %d, microbatch %d out of range", ErrSettings, k, it.Stage, it.Microbatch)
		}
		for j, d := range it.Delays {
			zj, ok := hist[j].at(k - d)
			if !ok {
				return fmt.Errorf("%w: iteration %d: stage %d delay %d beyond δ = %d or before the start", ErrSettings, k, j, d, p.Delays.Bound())
			}
			grad.z[j] = zj
		}
		g := grad.compute(it.Stage, it.Microbatch%r.obj.Batches())
		xs := r.block(x, it.Stage)
		r.step(xs, g, it.Stage)
		hist[it.Stage].push(k+1, xs)
		if err := r.advance(1, float64(k+1), current); err != nil || r.stopped {
			return err
		}
	}
	return r.finish(float64(iters), x)
}

// staleGradient computes one block's gradient at a point assembled from
// block versions, with the same arithmetic as PipeDream's replay: stage by
// stage for a Stagewise objective, from a full gradient otherwise.
type staleGradient struct {
	r     *run
	sw    objectives.Stagewise
	fused blockForwarder // sw's one-call forward, if it has one
	z     [][]float64    // block j of the stale point
	act   []float64
	out   []float64
	point []float64 // the assembled point (not stage-wise)
	full  []float64 // its gradient
	g     []float64
	trip  *tripGradient // a Pipelined objective's
}

// blockForwarder is a Stagewise objective that runs the forward of every
// stage in one call (objectives.Linear.ForwardBlocks), the same to the bit
// as Forward stage after stage.
type blockForwarder interface {
	ForwardBlocks(act []float64, z [][]float64, b int)
}

func newStaleGradient(r *run) *staleGradient {
	sw, _ := r.obj.(objectives.Stagewise)
	fused, _ := r.obj.(blockForwarder)
	if sw == nil {
		fused = nil
	}
	sg := &staleGradient{r: r, sw: sw, fused: fused, z: make([][]float64, r.stages), g: make([]float64, r.maxBlock())}
	if pl, ok := r.obj.(objectives.Pipelined); ok && sw == nil {
		sg.trip = newTripGradient(r, pl)
	}
	return sg
}

func (sg *staleGradient) compute(s, batch int) []float64 {
	r := sg.r
	g := sg.g[:r.blockLen(s)]
	if sg.trip != nil {
		sg.trip.compute(r, g, sg.z, s, batch)
		return g
	}
	if sg.sw != nil {
		rows := sg.sw.BatchRows(batch)
		sg.act, sg.out = resize(sg.act, rows), resize(sg.out, rows)
		clear(sg.act)
		if sg.fused != nil {
			sg.fused.ForwardBlocks(sg.act, sg.z, batch)
		} else {
			for j, zj := range sg.z {
				sg.sw.Forward(sg.act, zj, batch, j)
			}
		}
		sg.sw.OutputGradient(sg.out, sg.act, batch)
		sg.sw.BlockGradient(g, sg.out, sg.z[s], batch, s, r.noise)
		return g
	}
	sg.point, sg.full = resize(sg.point, r.obj.Dim()), resize(sg.full, r.obj.Dim())
	for j, zj := range sg.z {
		copy(r.block(sg.point, j), zj)
	}
	r.obj.Gradient(sg.full, sg.point, batch, r.noise)
	copy(g, r.block(sg.full, s))
	return g
}
