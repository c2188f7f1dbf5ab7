package optim

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/pipeline"
)

// lionReference is Lion per coordinate, written from the paper's
// Algorithm 2 (Chen et al., arXiv 2302.06675) with lion-pytorch's order of
// the decoupled decay, apart from the stepper:
// c = β1·m + (1−β1)·g; x ← x·(1 − γ·λ) − γ·sign(c); m ← β2·m + (1−β2)·g.
type lionReference struct {
	beta1, beta2, wd, gamma float64
	m                       []float64
}

func (l *lionReference) step(x, g []float64) {
	if l.m == nil {
		l.m = make([]float64, len(x))
	}
	for j := range x {
		c := l.beta1*l.m[j] + (1-l.beta1)*g[j]
		s := 0.0
		if c > 0 {
			s = 1
		} else if c < 0 {
			s = -1
		}
		x[j] = x[j]*(1-l.gamma*l.wd) - l.gamma*s
		l.m[j] = l.beta2*l.m[j] + (1-l.beta2)*g[j]
	}
}

// adamWReference is torch.optim.AdamW per coordinate (its documented
// algorithm: decay, moments, bias corrections), for the coordinates of
// Muon's blocks that are not hidden-layer matrices.
type adamWReference struct {
	beta1, beta2, eps, wd, gamma float64
	m, v                         []float64
}

func (a *adamWReference) step(x, g []float64, t int, skip func(int) bool) {
	if a.m == nil {
		a.m, a.v = make([]float64, len(x)), make([]float64, len(x))
	}
	for j := range x {
		if skip(j) {
			continue
		}
		x[j] *= 1 - a.gamma*a.wd
		a.m[j] = a.beta1*a.m[j] + (1-a.beta1)*g[j]
		a.v[j] = a.beta2*a.v[j] + (1-a.beta2)*g[j]*g[j]
		mhat := a.m[j] / (1 - math.Pow(a.beta1, float64(t)))
		vhat := a.v[j] / (1 - math.Pow(a.beta2, float64(t)))
		x[j] -= a.gamma * mhat / (math.Sqrt(vhat) + a.eps)
	}
}

// muonReference is Muon on one block, written from Jordan's reference
// (github.com/KellerJordan/Muon, muon.py: muon_update and
// zeropower_via_newtonschulz5) with naive matrix products on
// [][]float64, apart from the stepper: momentum.lerp_(grad, 1−β), update
// = grad.lerp_(momentum, β), NS on the torch-oriented matrix (fan-out ×
// fan-in, transposed when it has more rows than columns), scaled by
// max(1, rows/cols)^½, p·(1 − γ·wd) − γ·update; AdamW elsewhere.
type muonReference struct {
	beta, gamma, wd float64
	mats            []objectives.Matrix
	buf             []float64
	adam            adamWReference
	t               int
}

func (r *muonReference) step(x, g []float64) {
	r.t++
	if r.buf == nil {
		r.buf = make([]float64, len(x))
	}
	inMatrix := func(j int) bool {
		for _, mx := range r.mats {
			if j >= mx.Offset && j < mx.Offset+mx.Rows*mx.Cols {
				return true
			}
		}
		return false
	}
	r.adam.step(x, g, r.t, inMatrix)
	for _, mx := range r.mats {
		// The update in torch's orientation: rows are outputs.
		rows, cols := mx.Rows, mx.Cols
		at := func(i, k int) int { return mx.Offset + i*mx.Cols + k }
		if mx.InputRows {
			rows, cols = mx.Cols, mx.Rows
			at = func(i, k int) int { return mx.Offset + k*mx.Cols + i }
		}
		u := make([][]float64, rows)
		for i := range u {
			u[i] = make([]float64, cols)
			for k := range u[i] {
				j := at(i, k)
				r.buf[j] += (1 - r.beta) * (g[j] - r.buf[j])
				u[i][k] = g[j] + r.beta*(r.buf[j]-g[j])
			}
		}
		o := zeropower5(u)
		scale := math.Sqrt(math.Max(1, float64(rows)/float64(cols)))
		for i := range o {
			for k := range o[i] {
				j := at(i, k)
				x[j] = x[j]*(1-r.gamma*r.wd) - r.gamma*scale*o[i][k]
			}
		}
	}
}

// zeropower5 is the reference's quintic Newton-Schulz iteration, naive
// products throughout.
func zeropower5(g [][]float64) [][]float64 {
	const a, b, c = 3.4445, -4.7750, 2.0315
	x := g
	tall := len(g) > len(g[0])
	if tall {
		x = naiveT(x)
	}
	var norm float64
	for _, row := range x {
		for _, v := range row {
			norm += v * v
		}
	}
	norm = math.Sqrt(norm) + 1e-7
	for _, row := range x {
		for k := range row {
			row[k] /= norm
		}
	}
	for range 5 {
		A := naiveMul(x, naiveT(x))
		AA := naiveMul(A, A)
		B := naiveComb(b, A, c, AA)
		x = naiveComb(a, x, 1, naiveMul(B, x))
	}
	if tall {
		x = naiveT(x)
	}
	return x
}

func naiveT(x [][]float64) [][]float64 {
	out := make([][]float64, len(x[0]))
	for k := range out {
		out[k] = make([]float64, len(x))
		for i := range x {
			out[k][i] = x[i][k]
		}
	}
	return out
}

func naiveMul(p, q [][]float64) [][]float64 {
	out := make([][]float64, len(p))
	for i := range p {
		out[i] = make([]float64, len(q[0]))
		for k := range out[i] {
			for j := range q {
				out[i][k] += p[i][j] * q[j][k]
			}
		}
	}
	return out
}

func naiveComb(alpha float64, p [][]float64, beta float64, q [][]float64) [][]float64 {
	out := make([][]float64, len(p))
	for i := range p {
		out[i] = make([]float64, len(p[i]))
		for k := range out[i] {
			out[i][k] = alpha*p[i][k] + beta*q[i][k]
		}
	}
	return out
}

// matrixQuadratic is a one-block least-squares problem whose block
// declares two hidden-layer matrices around AdamW coordinates: a 4×3
// matrix in torch's orientation (fan-out 4: scale √(4/3), transposed for
// the iteration) at 2..13, and a 2×4 one stored in×out (fan-out 4, fan-in
// 2: scale √2) at 16..23; coordinates 0, 1, 14 and 15 are AdamW's.
type matrixQuadratic struct{ *objectives.Linear }

func (matrixQuadratic) StageMatrices(int) []objectives.Matrix {
	return []objectives.Matrix{{Offset: 2, Rows: 4, Cols: 3}, {Offset: 16, Rows: 2, Cols: 4, InputRows: true}}
}

// Lion's 50 sequential steps (one stage: no staleness) on a quadratic and
// on a tiny character LM equal the per-coordinate reference to 1e-9.
func TestLionMatchesReference(t *testing.T) {
	const k, gamma = 50, 0.003
	for _, wd := range []float64{0, 0.1} {
		opt := Optimizer{Algorithm: Lion, WeightDecay: wd}
		obj := quadratic(t, 40, 6, 1, 5, 2)
		ref := lionReference{beta1: 0.9, beta2: 0.99, wd: wd, gamma: gamma}
		want := sequential(obj, k, ref.step)
		res := mustRun(t, obj, PipeDream{Timeline: generate(t, "pipedream", pipeline.Shape{Ranks: 1, Microbatches: k})}, Settings{StepSize: gamma, Optimizer: opt})
		closeVectors(t, "lion quadratic", res.X, want, 1e-9)

		lm := smallLM(t, 3)
		refs := make([]lionReference, 3)
		for s := range refs {
			refs[s] = lionReference{beta1: 0.9, beta2: 0.99, wd: wd, gamma: gamma}
		}
		want = syncSteps(lm, k, func(s int, x, g []float64) { refs[s].step(x, g) })
		res = mustRun(t, lm, Sync{Timeline: generate(t, "1f1b", pipeline.Shape{Ranks: 3, Microbatches: 1}), Iterations: k}, Settings{StepSize: gamma, Optimizer: opt})
		closeVectors(t, "lion charlm", res.X, want, 1e-9)
	}
}

// Muon's 50 steps equal the reference to 1e-9: on a quadratic whose block
// declares two matrices (both orientations, both scales above 1, AdamW
// gaps), and on a tiny character LM (the QKV, output and MLP matrices of
// its middle stage orthogonalised, embeddings, head, biases and gains on
// AdamW).
func TestMuonMatchesReference(t *testing.T) {
	const k, gamma, wd = 50, 0.01, 0.05
	opt := Optimizer{Algorithm: Muon, WeightDecay: wd}
	newRef := func(mats []objectives.Matrix) *muonReference {
		return &muonReference{beta: 0.95, gamma: gamma, wd: wd, mats: mats,
			adam: adamWReference{beta1: 0.9, beta2: 0.999, eps: 1e-8, wd: wd, gamma: gamma}}
	}
	obj := matrixQuadratic{quadratic(t, 40, 24, 1, 5, 2)}
	ref := newRef(obj.StageMatrices(0))
	want := sequential(obj, k, ref.step)
	res := mustRun(t, obj, PipeDream{Timeline: generate(t, "pipedream", pipeline.Shape{Ranks: 1, Microbatches: k})}, Settings{StepSize: gamma, Optimizer: opt})
	closeVectors(t, "muon quadratic", res.X, want, 1e-9)
	if diff := maxDiff(res.X, mustRun(t, obj.Linear, PipeDream{Timeline: generate(t, "pipedream", pipeline.Shape{Ranks: 1, Microbatches: k})}, Settings{StepSize: gamma, Optimizer: opt}).X); diff < 1e-3 {
		t.Errorf("the declared matrices change the run by only %g", diff)
	}

	lm := smallLM(t, 3)
	refs := []*muonReference{newRef(lm.StageMatrices(0)), newRef(lm.StageMatrices(1)), newRef(lm.StageMatrices(2))}
	if len(refs[1].mats) != 4 || refs[0].mats != nil || refs[2].mats != nil {
		t.Fatalf("charlm's layout: %v, %v, %v", refs[0].mats, refs[1].mats, refs[2].mats)
	}
	want = syncSteps(lm, k, func(s int, x, g []float64) { refs[s].step(x, g) })
	res = mustRun(t, lm, Sync{Timeline: generate(t, "1f1b", pipeline.Shape{Ranks: 3, Microbatches: 1}), Iterations: k}, Settings{StepSize: gamma, Optimizer: opt})
	closeVectors(t, "muon charlm", res.X, want, 1e-9)
}

// On an objective without hidden-layer matrices (the linear ones) Muon is
// AdamW with the same β1, β2, ε and wd, bit for bit: the authors' rule
// for vector parameters.
func TestMuonWithoutMatricesIsAdamW(t *testing.T) {
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 4, Microbatches: 30})
	f := logistic(t, 100, 16, 4, 5, 0.5, 2)
	muon := mustRun(t, f, PipeDream{Timeline: tl}, Settings{StepSize: 0.01, Seed: 3, Optimizer: Optimizer{Algorithm: Muon, WeightDecay: 0.01}})
	adamw := mustRun(t, f, PipeDream{Timeline: tl}, Settings{StepSize: 0.01, Seed: 3, Optimizer: Optimizer{Algorithm: AdamW, WeightDecay: 0.01}})
	identicalResults(t, "muon on vectors", muon, adamw)
}

// Lion's first update is −γ·sign(g) (m = 0, so c = (1−β1)·g): every
// coordinate moves by exactly γ (the toy's gradient at 0 has no zero).
func TestLionFirstStep(t *testing.T) {
	const gamma = 0.25
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 1, Microbatches: 1})
	obj := plain{quadratic(t, 40, 6, 1, 5, 2)}
	g := make([]float64, 6)
	obj.Gradient(g, obj.Init(), 0, nil)
	res := mustRun(t, obj, PipeDream{Timeline: tl}, Settings{StepSize: gamma, Optimizer: Optimizer{Algorithm: Lion}})
	for j, v := range g {
		if want := -gamma * math.Copysign(1, v); v == 0 || res.X[j] != want {
			t.Errorf("x[%d] = %g after one step, want −γ·sign(%g) = %g", j, res.X[j], v, want)
		}
	}
	if sign(0) != 0 || sign(-3) != -1 || sign(2) != 1 {
		t.Errorf("sign(0, −3, 2) = %g, %g, %g", sign(0), sign(-3), sign(2))
	}
}

// Newton-Schulz acts on singular values alone: NS(G) = U·φ⁵(Σ/‖G‖)·Vᵀ
// with φ(σ) = aσ + bσ³ + cσ⁵, because every step is an odd matrix
// polynomial in X. So an orthogonal Q (singular values 1, ‖Q‖_F = √n) maps
// to φ⁵(1/√n)·Q, and a random matrix's output singular values are φ⁵ of
// its normalised ones, which for normalised values in [0.02, 1] lie in
// [0.68, 1.14] (φ⁵'s range there; the band Muon's authors describe as
// roughly [0.7, 1.2]).
func TestNewtonSchulzSingularValues(t *testing.T) {
	phi5 := func(s float64) float64 {
		for range 5 {
			s = nsA*s + nsB*s*s*s + nsC*s*s*s*s*s
		}
		return s
	}
	var ns newtonSchulz
	// A rotation in two planes and a swap: orthogonal, 4×4.
	c, s := math.Cos(0.3), math.Sin(0.3)
	q := []float64{c, -s, 0, 0, s, c, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0}
	out := make([]float64, 16)
	ns.orthogonalize(out, q, 4, 4)
	f := phi5(1 / (2 + nsEps))
	for j := range q {
		if math.Abs(out[j]-f*q[j]) > 1e-12 {
			t.Fatalf("NS(Q)[%d] = %.15g, want φ⁵(1/2)·Q = %.15g", j, out[j], f*q[j])
		}
	}
	rng := objectives.NewRand(7, 1)
	for _, shape := range [][2]int{{8, 16}, {16, 8}, {6, 6}} {
		r, k := shape[0], shape[1]
		g := make([]float64, r*k)
		for j := range g {
			g[j] = rng.NormFloat64()
		}
		o := make([]float64, r*k)
		ns.orthogonalize(o, g, r, k)
		sg, so := singularValues(g, r, k), singularValues(o, r, k)
		norm := math.Sqrt(dot(g, g)) + nsEps
		var want []float64
		for _, v := range sg {
			if v/norm < 0.02 {
				t.Fatalf("%d×%d: σ/‖G‖ = %g, outside the band's domain", r, k, v/norm)
			}
			want = append(want, phi5(v/norm))
		}
		slices.Sort(want)
		slices.Sort(so)
		for i := range so {
			if math.Abs(so[i]-want[i]) > 1e-10 || so[i] < 0.68 || so[i] > 1.14 {
				t.Errorf("%d×%d: singular value %g, want φ⁵ = %g in [0.68, 1.14]", r, k, so[i], want[i])
			}
		}
	}
}

func singularValues(a []float64, r, k int) []float64 {
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(r, k, slices.Clone(a)), mat.SVDNone) {
		panic("svd failed")
	}
	return svd.Values(nil)
}

// A layout that leaves its block or overlaps is refused before a run.
func TestMuonRefusesBadLayout(t *testing.T) {
	obj := badLayout{quadratic(t, 40, 6, 1, 5, 2)}
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 1, Microbatches: 2})
	if _, err := Run(obj, PipeDream{Timeline: tl}, Settings{StepSize: 0.1, Optimizer: Optimizer{Algorithm: Muon}}); err == nil {
		t.Error("a 2×4 matrix in a block of 6: no error")
	}
}

type badLayout struct{ *objectives.Linear }

func (badLayout) StageMatrices(int) []objectives.Matrix {
	return []objectives.Matrix{{Offset: 0, Rows: 2, Cols: 4}}
}

// sequential runs k steps of step from obj's initial point on batches
// 0, 1, .. (mod Batches) and returns the point.
func sequential(obj objectives.Objective, k int, step func(x, g []float64)) []float64 {
	x := obj.Init()
	g := make([]float64, len(x))
	for i := range k {
		obj.Gradient(g, x, i%obj.Batches(), nil)
		step(x, g)
	}
	return x
}

// syncSteps runs k iterations of synchronous training with one
// microbatch per iteration: the gradient at x on batch i, then every
// stage's step on its block.
func syncSteps(obj objectives.Objective, k int, step func(s int, x, g []float64)) []float64 {
	x := obj.Init()
	g := make([]float64, len(x))
	b := obj.Blocks()
	for i := range k {
		obj.Gradient(g, x, i%obj.Batches(), nil)
		for s := 0; s+1 < len(b); s++ {
			step(s, x[b[s]:b[s+1]], g[b[s]:b[s+1]])
		}
	}
	return x
}

func maxDiff(a, b []float64) float64 {
	var d float64
	for j := range a {
		d = max(d, math.Abs(a[j]-b[j]))
	}
	return d
}
