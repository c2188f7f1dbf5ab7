package optim

import (
	"fmt"

	"pipelab/objectives"
)

// RPD is randomized PipeDream (docs/reference.md §1.4): at iteration k the
// delay model picks a stage s, a microbatch and one delay d_j per stage;
// z takes block j from the iterate after k - d_j updates, and block s
// alone steps, x_s ← x_s - γ∇_s f(z; ξ). Only the last δ+1 versions of each
// block are kept, δ being the model's Bound.
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
	hist := make([]*versions, r.stages)
	for s := range hist {
		hist[s] = newVersions(p.Delays.Bound()+1, r.block(x, s))
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
	z     [][]float64 // block j of the stale point
	act   []float64
	out   []float64
	point []float64 // the assembled point (not stage-wise)
	full  []float64 // its gradient
	g     []float64
	trip  *tripGradient // a Pipelined objective's
}

func newStaleGradient(r *run) *staleGradient {
	sw, _ := r.obj.(objectives.Stagewise)
	sg := &staleGradient{r: r, sw: sw, z: make([][]float64, r.stages), g: make([]float64, r.maxBlock())}
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
		for j, zj := range sg.z {
			sg.sw.Forward(sg.act, zj, batch, j)
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

// versions keeps the last keep versions of one block, each stamped with
// the number of updates after which it became current. The versions sit
// in a ring in one array, grown as versions come until it holds keep of
// them, so a block that is updated less often than δ times (every block
// of a run whose updates spread over many stages) keeps only what it has.
type versions struct {
	width  int       // the block's length
	keep   int       // most versions kept
	data   []float64 // version n at data[n*width:(n+1)*width]
	stamps []int
	newest int // ring position of the newest version
}

func newVersions(keep int, initial []float64) *versions {
	v := &versions{width: len(initial), keep: max(keep, 1)}
	v.data = append(v.data, initial...)
	v.stamps = append(v.stamps, 0)
	return v
}

// push records xs as the version current after update count stamp.
func (v *versions) push(stamp int, xs []float64) {
	if len(v.stamps) < v.keep {
		v.data = append(v.data, xs...)
		v.stamps = append(v.stamps, stamp)
		v.newest = len(v.stamps) - 1
		return
	}
	v.newest++
	if v.newest == v.keep {
		v.newest = 0
	}
	copy(v.slot(v.newest), xs)
	v.stamps[v.newest] = stamp
}

// slot returns the version at ring position n.
func (v *versions) slot(n int) []float64 { return v.data[n*v.width : (n+1)*v.width] }

// at returns the block as it was after i updates, if still kept: the
// newest version stamped at or before i. Stamps grow from the oldest kept
// version to the newest and every dropped version is older than all of
// them, so the answer is found by searching the sorted stamps: a guess
// where i falls between the oldest and newest stamps (they are spread
// about evenly when the block's updates are), then galloping from the
// guess and a binary search in the bracket that leaves. A good guess costs
// a few probes; a bad one no more than a binary search's twice.
func (v *versions) at(i int) ([]float64, bool) {
	count := len(v.stamps)
	oldest := v.newest + 1 - count // ring position of the oldest, less count if negative
	first, last := v.stamp(oldest, 0), v.stamps[v.newest]
	switch {
	case i < first:
		return nil, false
	case i >= last:
		return v.slot(v.newest), true
	}
	// The answer lies in [lo, hi): lo's stamp is at or before i, hi's
	// after it.
	lo, hi := 0, count-1
	g := int(int64(i-first) * int64(count-1) / int64(last-first)) // 0 ≤ g < count-1
	if v.stamp(oldest, g) <= i {
		lo = g
		for step := 1; lo+step < hi; step *= 2 {
			if n := lo + step; v.stamp(oldest, n) > i {
				hi = n
				break
			} else {
				lo = n
			}
		}
	} else {
		hi = g
		for step := 1; hi-step > lo; step *= 2 {
			if n := hi - step; v.stamp(oldest, n) <= i {
				lo = n
				break
			} else {
				hi = n
			}
		}
	}
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if v.stamp(oldest, mid) <= i {
			lo = mid
		} else {
			hi = mid
		}
	}
	return v.slot(v.ring(oldest + lo)), true
}

// ring returns the ring position of version oldest+n, oldest being the
// position of the oldest kept version less the count when negative.
func (v *versions) ring(p int) int {
	if p < 0 {
		return p + len(v.stamps)
	}
	return p
}

// stamp returns the stamp of the n-th oldest kept version.
func (v *versions) stamp(oldest, n int) int { return v.stamps[v.ring(oldest+n)] }
