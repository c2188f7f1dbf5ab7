package optim

import (
	"math"

	"github.com/pipelab/pipelab/objectives"
)

// muon is Muon (Jordan et al. 2024, github.com/KellerJordan/Muon, and
// torch.optim.Muon) with AdamW for the rest of the block, as the authors
// prescribe. On each hidden-layer matrix G of the stage's block
// (objectives.Matrices), with its momentum buffer B (zero before the
// stage's first update) and β = Momentum:
//
//	B ← β·B + (1−β)·G
//	U ← NS₅((1−β)·G + β·B)          (Nesterov; newtonschulz.go)
//	W ← W·(1 − γ·wd) − γ·s·U
//
// with s = max(1, fan-out/fan-in)^½ (MuonOriginal, the reference's) or
// 0.2·√max(rows, cols) (MuonMatchRMS, Moonshot's). Every other coordinate
// (all of them for an objective without hidden-layer matrices, such as the
// linear ones, whose blocks are vectors) takes AdamW's update with β1, β2,
// ε and wd, its moments and bias correction counted by the stage's step
// counter.
func (st *stepper) muon(state *stageState, xs, g []float64, gamma float64, s int) {
	if state.m == nil {
		n := len(g)
		state.m, state.v, state.buf, state.last = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	}
	var mats []objectives.Matrix
	if st.layout != nil {
		mats = st.layout.StageMatrices(s)
	}
	lo := 0
	for i := 0; i <= len(mats); i++ {
		hi := len(g)
		if i < len(mats) {
			hi = mats[i].Offset
		}
		st.adamSpan(state, xs, g, gamma, lo, hi)
		if st.r.wantDirection {
			st.adamDirection(state, lo, hi)
		}
		if i < len(mats) {
			lo = hi + mats[i].Rows*mats[i].Cols
		}
	}
	for _, mx := range mats {
		st.muonMatrix(state, xs, g, gamma, mx)
	}
}

// adamDirection keeps, for predict, AdamW's update per unit γ on
// coordinates lo..hi-1 (its last update without the decay), as direction
// gives it for AdamW.
func (st *stepper) adamDirection(state *stageState, lo, hi int) {
	o := st.opt
	c1 := 1 - math.Pow(o.Beta1, float64(state.t))
	c2 := math.Sqrt(1 - math.Pow(o.Beta2, float64(state.t)))
	for j := lo; j < hi; j++ {
		state.last[j] = (state.m[j] / c1) / (math.Sqrt(state.v[j])/c2 + o.Eps)
	}
}

// muonMatrix applies Muon's update to one matrix of the block.
func (st *stepper) muonMatrix(state *stageState, xs, g []float64, gamma float64, mx objectives.Matrix) {
	o := st.opt
	lo, n := mx.Offset, mx.Rows*mx.Cols
	beta := o.Momentum
	buf, gm := state.buf[lo:lo+n], g[lo:lo+n]
	st.nsIn, st.nsOut = resize(st.nsIn, n), resize(st.nsOut, n)
	for j, v := range gm {
		b := beta*buf[j] + (1-beta)*v
		buf[j] = b
		st.nsIn[j] = (1-beta)*v + beta*b
	}
	st.ns.orthogonalize(st.nsOut, st.nsIn, mx.Rows, mx.Cols)
	scale := muonScale(o.MuonScale, mx)
	decay := gamma * o.WeightDecay
	d := st.delta[lo : lo+n]
	x := xs[lo : lo+n]
	for j, u := range st.nsOut {
		v := x[j] * (1 - decay)
		v -= gamma * scale * u
		state.last[lo+j] = scale * u
		d[j] = v - x[j]
		x[j] = v
	}
}

// muonScale is the factor of a matrix's orthogonalised update.
func muonScale(sc MuonScale, mx objectives.Matrix) float64 {
	if sc == MuonMatchRMS {
		return 0.2 * math.Sqrt(float64(max(mx.Rows, mx.Cols)))
	}
	out, in := mx.Fans()
	return math.Sqrt(max(1, float64(out)/float64(in)))
}
