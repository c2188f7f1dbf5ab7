package optim

import (
	"fmt"
	"math"
	"slices"

	"github.com/pipelab/pipelab/objectives"
	"strconv"
	"strings"
)

// Algorithm names an optimizer's update rule.
type Algorithm string

// The optimizers, with torch.optim's formulas (docs/reference.md §4).
const (
	// SGD is plain SGD: x ← x − γ·g.
	SGD Algorithm = "sgd"
	// Momentum is SGD with heavy-ball momentum μ, dampening 0: buf ← g on a
	// stage's first step, then buf ← μ·buf + g; x ← x − γ·buf.
	Momentum Algorithm = "momentum"
	// Nesterov is Momentum that steps along g + μ·buf instead of buf.
	Nesterov Algorithm = "nesterov"
	// Adam is Adam with bias correction (Kingma and Ba, ICLR 2015):
	// m ← β1·m + (1−β1)·g, v ← β2·v + (1−β2)·g²,
	// x ← x − γ·(m/(1−β1^t)) / (√(v/(1−β2^t)) + ε).
	Adam Algorithm = "adam"
	// AdamW is Adam with decoupled weight decay (Loshchilov and Hutter,
	// ICLR 2019): x ← x·(1 − γ·wd), then the Adam step.
	AdamW Algorithm = "adamw"
	// Lion is Lion (Chen et al., "Symbolic Discovery of Optimization
	// Algorithms", NeurIPS 2023, arXiv 2302.06675, Algorithm 2), with
	// lion-pytorch's defaults β1 = 0.9, β2 = 0.99, wd = 0:
	// c ← β1·m + (1−β1)·g, x ← x − γ·(sign(c) + wd·x), m ← β2·m + (1−β2)·g,
	// sign(0) = 0 (optimizer_lion.go).
	Lion Algorithm = "lion"
	// Muon is Muon (Jordan et al. 2024, "Muon: An optimizer for hidden
	// layers in neural networks"; torch.optim.Muon): Nesterov momentum
	// μ = 0.95 on each weight matrix of a stage, the update orthogonalised
	// by five quintic Newton-Schulz steps and scaled by max(1, rows/cols)^½,
	// and AdamW on every parameter that is not such a matrix
	// (optimizer_muon.go).
	Muon Algorithm = "muon"
)

// Algorithms lists the optimizers in the order the documentation gives them.
var Algorithms = []Algorithm{SGD, Momentum, Nesterov, Adam, AdamW, Lion, Muon}

// MuonScale names how Muon scales its orthogonalised update, torch.optim.Muon's
// adjust_lr_fn.
type MuonScale string

// The Muon scales.
const (
	// MuonOriginal is Jordan's reference scale max(1, rows/cols)^½.
	MuonOriginal MuonScale = "original"
	// MuonMatchRMS is Moonshot's 0.2·√max(rows, cols) (Liu et al., "Muon
	// is Scalable for LLM Training", arXiv 2502.16982, §2.2), which gives
	// the update the RMS of a typical AdamW update, so that the matrices
	// and the AdamW parameters can share one step size γ.
	MuonMatchRMS MuonScale = "match_rms_adamw"
)

// Schedule names a learning-rate schedule.
type Schedule string

// The learning-rate schedules.
const (
	// Constant keeps γ (after the warm-up, if any).
	Constant Schedule = "constant"
	// Cosine decays γ to zero along half a cosine over the stage's updates
	// after the warm-up.
	Cosine Schedule = "cosine"
)

// Optimizer configures the update every stage applies to its own block.
// The zero value is plain SGD at a constant step size. Each stage keeps
// its own state (momentum buffer, Adam's moments) and its own step
// counter t, advanced at each of its own updates, as in a pipeline where
// every stage owns its parameters and their optimizer.
type Optimizer struct {
	// Algorithm is the update rule; empty means SGD.
	Algorithm Algorithm
	// Momentum is μ of Momentum and Nesterov (torch's default is 0; the
	// command line's is 0.9), and Muon's β (zero means the authors' 0.95).
	Momentum float64
	// Beta1, Beta2 and Eps are Adam's β1, β2 and ε (also those of Muon's
	// AdamW part); zero values take torch's defaults 0.9, 0.999 and 1e-8.
	// Lion's β1 and β2 default to the authors' 0.9 and 0.99.
	Beta1, Beta2, Eps float64
	// WeightDecay is the decoupled decay wd of AdamW, Lion and Muon (the
	// other rules have none).
	WeightDecay float64
	// MuonScale is Muon's update scale; empty means MuonOriginal.
	MuonScale MuonScale
	// Schedule is the learning-rate schedule; empty means Constant.
	Schedule Schedule
	// Warmup is the number of a stage's own updates over which γ rises
	// linearly from γ/Warmup to γ: update t (1-based) uses γ·min(t/Warmup, 1).
	Warmup int
}

// algorithm returns the algorithm with the empty name resolved.
func (o Optimizer) algorithm() Algorithm {
	if o.Algorithm == "" {
		return SGD
	}
	return o.Algorithm
}

// withDefaults fills torch's defaults into zero Adam parameters.
func (o Optimizer) withDefaults() Optimizer {
	o.Algorithm = o.algorithm()
	if o.Schedule == "" {
		o.Schedule = Constant
	}
	if o.Beta1 == 0 {
		o.Beta1 = 0.9
	}
	if o.Beta2 == 0 {
		o.Beta2 = 0.999
		if o.Algorithm == Lion {
			o.Beta2 = 0.99
		}
	}
	if o.Algorithm == Muon {
		if o.Momentum == 0 {
			o.Momentum = DefaultMuonMomentum
		}
		if o.MuonScale == "" {
			o.MuonScale = MuonOriginal
		}
	}
	if o.Eps == 0 {
		o.Eps = 1e-8
	}
	return o
}

// Validate reports an optimizer that cannot run, naming the parameter.
func (o Optimizer) Validate() error {
	o = o.withDefaults()
	switch {
	case !slices.Contains(Algorithms, o.Algorithm):
		return fmt.Errorf("%w: unknown optimizer %q (known: %s)", ErrSettings, o.Algorithm, algorithmNames())
	case o.Schedule != Constant && o.Schedule != Cosine:
		return fmt.Errorf("%w: unknown learning-rate schedule %q (known: constant, cosine)", ErrSettings, o.Schedule)
	case !(o.Momentum >= 0 && o.Momentum < 1):
		return fmt.Errorf("%w: momentum μ = %g must be in [0, 1)", ErrSettings, o.Momentum)
	case !(o.Beta1 > 0 && o.Beta1 < 1) || !(o.Beta2 > 0 && o.Beta2 < 1):
		return fmt.Errorf("%w: β1 = %g and β2 = %g must be in (0, 1)", ErrSettings, o.Beta1, o.Beta2)
	case !(o.Eps > 0) || math.IsInf(o.Eps, 0):
		return fmt.Errorf("%w: ε = %g must be positive and finite", ErrSettings, o.Eps)
	case !(o.WeightDecay >= 0) || math.IsInf(o.WeightDecay, 0):
		return fmt.Errorf("%w: weight decay %g must be non-negative and finite", ErrSettings, o.WeightDecay)
	case o.WeightDecay != 0 && o.Algorithm != AdamW && o.Algorithm != Lion && o.Algorithm != Muon:
		return fmt.Errorf("%w: weight decay applies to adamw, lion and muon, not %s", ErrSettings, o.Algorithm)
	case o.MuonScale != "" && o.Algorithm != Muon:
		return fmt.Errorf("%w: the muon scale applies to muon only, not %s", ErrSettings, o.Algorithm)
	case o.Algorithm == Muon && o.MuonScale != MuonOriginal && o.MuonScale != MuonMatchRMS:
		return fmt.Errorf("%w: unknown muon scale %q (known: original, match_rms_adamw)", ErrSettings, o.MuonScale)
	case o.Warmup < 0:
		return fmt.Errorf("%w: warm-up %d must not be negative", ErrSettings, o.Warmup)
	}
	return nil
}

// DefaultMuonMomentum is Muon's β when none is given: the authors' and
// torch.optim.Muon's 0.95.
const DefaultMuonMomentum = 0.95

// algorithmNames lists the known optimizers for messages.
func algorithmNames() string {
	names := make([]string, len(Algorithms))
	for i, a := range Algorithms {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}

// stageState is one stage's optimizer state: its step counter and the
// buffers its rule keeps, allocated at the stage's first update.
type stageState struct {
	t    int       // updates applied
	buf  []float64 // Momentum, Nesterov, Muon: the momentum buffer; SGD: the last gradient (for predict)
	m, v []float64 // Adam, AdamW, Muon's AdamW part: the moments; Lion: m, its one moment
	last []float64 // Lion, Muon: the last update per unit γ (for predict)
}

// stepper applies one optimizer to the blocks of a run: one state per
// stage (and per replica for LocalSGD).
type stepper struct {
	r       *run
	opt     Optimizer
	horizon int // a stage's updates over the run, the length of the cosine
	states  []stageState
	delta   []float64 // the move of the last update, longest block's size
	// layout is the objective's hidden-layer matrices, which Muon
	// orthogonalises (nil: none); ns, nsIn and nsOut its workspaces.
	layout      objectives.Matrices
	ns          newtonSchulz
	nsIn, nsOut []float64
}

// newStepper returns a stepper with fresh state for replicas·stages
// blocks; horizon is the number of updates one stage makes over the run.
func newStepper(r *run, replicas, horizon int) *stepper {
	st := &stepper{r: r, opt: r.set.Optimizer.withDefaults(), horizon: max(horizon, 1),
		states: make([]stageState, replicas*r.stages), delta: make([]float64, r.maxBlock())}
	st.layout, _ = r.obj.(objectives.Matrices)
	return st
}

// rate returns γ for a stage's update number t (1-based), scaled by the
// warm-up and the schedule; a constant schedule without warm-up returns
// γ itself, so plain SGD keeps its arithmetic exactly.
func (st *stepper) rate(t int) float64 {
	gamma := st.r.set.StepSize
	o := st.opt
	if o.Warmup > 0 && t < o.Warmup {
		return gamma * float64(t) / float64(o.Warmup)
	}
	if o.Schedule == Cosine {
		span := max(st.horizon-o.Warmup, 1)
		done := min(float64(t-max(o.Warmup, 0))/float64(span), 1)
		return gamma * 0.5 * (1 + math.Cos(math.Pi*done))
	}
	return gamma
}

// step applies the optimizer's update with gradient g to xs, block s of
// replica rep, and tells the tracker, the move divided by weight (the
// replica count for LocalSGD's mean, else 1). scale multiplies the
// learning rate (PipeMare's rescheduling; 1 otherwise).
func (st *stepper) step(xs, g []float64, rep, s int, weight, scale float64) {
	state := &st.states[rep*st.r.stages+s]
	state.t++
	gamma := st.rate(state.t) * scale
	o := st.opt
	switch o.Algorithm {
	case SGD:
		if st.r.wantDirection {
			state.buf = resize(state.buf, len(g))
			copy(state.buf, g)
		}
		for j, v := range g {
			xs[j] -= gamma * v
		}
		st.r.shift(s, g, -gamma/weight)
		return
	case Momentum, Nesterov:
		st.momentum(state, xs, g, gamma)
	case Adam, AdamW:
		st.adam(state, xs, g, gamma)
	case Lion:
		st.lion(state, xs, g, gamma)
	case Muon:
		st.muon(state, xs, g, gamma, s)
	}
	st.r.shift(s, st.delta[:len(g)], 1/weight)
}

// momentum is torch.optim.SGD with momentum μ and dampening 0.
func (st *stepper) momentum(state *stageState, xs, g []float64, gamma float64) {
	mu := st.opt.Momentum
	first := state.buf == nil
	if first {
		state.buf = make([]float64, len(g))
	}
	d := st.delta[:len(g)]
	for j, v := range g {
		b := v
		if !first {
			b = mu*state.buf[j] + v
		}
		state.buf[j] = b
		dir := b
		if st.opt.Algorithm == Nesterov {
			dir = v + mu*b
		}
		d[j] = -gamma * dir
		xs[j] += d[j]
	}
}

// adam is torch.optim.Adam (AdamW: torch.optim.AdamW) without amsgrad.
func (st *stepper) adam(state *stageState, xs, g []float64, gamma float64) {
	if state.m == nil {
		state.m, state.v = make([]float64, len(g)), make([]float64, len(g))
	}
	st.adamSpan(state, xs, g, gamma, 0, len(g))
}

// adamSpan applies Adam's (AdamW's, and Muon's AdamW part's) update to
// coordinates lo..hi-1 of the block, whose moments exist.
func (st *stepper) adamSpan(state *stageState, xs, g []float64, gamma float64, lo, hi int) {
	o := st.opt
	c1 := 1 - math.Pow(o.Beta1, float64(state.t))
	c2 := math.Sqrt(1 - math.Pow(o.Beta2, float64(state.t)))
	decay := 0.0
	if o.Algorithm == AdamW || o.Algorithm == Muon {
		decay = gamma * o.WeightDecay
	}
	d := st.delta[:len(g)]
	for j := lo; j < hi; j++ {
		v := g[j]
		m := o.Beta1*state.m[j] + (1-o.Beta1)*v
		s := o.Beta2*state.v[j] + (1-o.Beta2)*v*v
		state.m[j], state.v[j] = m, s
		x := xs[j] * (1 - decay)
		x += -(gamma / c1) * (m / (math.Sqrt(s)/c2 + o.Eps))
		d[j] = x - xs[j]
		xs[j] = x
	}
}

// direction writes into u the stage's current update direction, the one
// its next step would move along per unit of γ: the momentum buffer
// (Momentum and Nesterov), Adam's m̂/(√v̂ + ε), the last update per unit
// of γ (Lion, Muon: their next one depends on the next gradient), or the
// last gradient for SGD; zero before the stage's first update. It needs
// run.wantDirection set before the first step for SGD.
func (st *stepper) direction(u []float64, rep, s int) {
	state := &st.states[rep*st.r.stages+s]
	clear(u)
	switch st.opt.Algorithm {
	case SGD, Momentum, Nesterov:
		if state.buf != nil {
			copy(u, state.buf)
		}
	case Adam, AdamW:
		if state.m == nil {
			return
		}
		o := st.opt
		c1 := 1 - math.Pow(o.Beta1, float64(state.t))
		c2 := math.Sqrt(1 - math.Pow(o.Beta2, float64(state.t)))
		for j := range u {
			u[j] = (state.m[j] / c1) / (math.Sqrt(state.v[j])/c2 + o.Eps)
		}
	case Lion, Muon:
		if state.last != nil {
			copy(u, state.last)
		}
	}
}

// Label names the optimizer with every setting that shapes its updates,
// the way results record it: "sgd" for the zero value, else the
// algorithm, its parameters, and the schedule when it is not constant,
// e.g. "adam b1=0.9 b2=0.999 eps=1e-08 cosine warmup=100".
func (o Optimizer) Label() string {
	o = o.withDefaults()
	parts := []string{string(o.Algorithm)}
	g := func(k string, v float64) { parts = append(parts, k+"="+strconv.FormatFloat(v, 'g', -1, 64)) }
	switch o.Algorithm {
	case Momentum, Nesterov:
		g("mu", o.Momentum)
	case Adam, AdamW:
		g("b1", o.Beta1)
		g("b2", o.Beta2)
		g("eps", o.Eps)
		if o.Algorithm == AdamW {
			g("wd", o.WeightDecay)
		}
	case Lion:
		g("b1", o.Beta1)
		g("b2", o.Beta2)
		g("wd", o.WeightDecay)
	case Muon:
		g("mu", o.Momentum)
		g("b1", o.Beta1)
		g("b2", o.Beta2)
		g("eps", o.Eps)
		g("wd", o.WeightDecay)
		if o.MuonScale != MuonOriginal {
			parts = append(parts, "scale="+string(o.MuonScale))
		}
	}
	if o.Schedule != Constant {
		parts = append(parts, string(o.Schedule))
	}
	if o.Warmup > 0 {
		parts = append(parts, "warmup="+strconv.Itoa(o.Warmup))
	}
	return strings.Join(parts, " ")
}
