package optim

// lion is Lion (Chen et al., "Symbolic Discovery of Optimization
// Algorithms", NeurIPS 2023, arXiv 2302.06675, Algorithm 2) in the form
// lion-pytorch (github.com/lucidrains/lion-pytorch) implements it, whose
// defaults β1 = 0.9, β2 = 0.99, wd = 0 this package takes:
//
//	c ← β1·m + (1−β1)·g
//	x ← x − γ·(sign(c) + wd·x)
//	m ← β2·m + (1−β2)·g
//
// with m = 0 before the stage's first update and sign(0) = 0, as
// torch.sign. lion-pytorch decays first, x·(1 − γ·wd), then subtracts
// γ·sign(c): the same arithmetic as the paper's x − γ·(sign(c) + wd·x) up
// to rounding; this is lion-pytorch's order.
func (st *stepper) lion(state *stageState, xs, g []float64, gamma float64) {
	o := st.opt
	if state.m == nil {
		state.m, state.last = make([]float64, len(g)), make([]float64, len(g))
	}
	decay := gamma * o.WeightDecay
	d := st.delta[:len(g)]
	for j, v := range g {
		u := sign(o.Beta1*state.m[j] + (1-o.Beta1)*v)
		state.m[j] = o.Beta2*state.m[j] + (1-o.Beta2)*v
		x := xs[j] * (1 - decay)
		x -= gamma * u
		state.last[j] = u
		d[j] = x - xs[j]
		xs[j] = x
	}
}

// sign is −1, 0 or 1, as torch.sign (NaN stays NaN, so that a diverging
// run is seen as one).
func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return v
}
