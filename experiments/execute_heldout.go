package experiments

import (
	"math"

	"github.com/pipelab/pipelab/objectives"
)

// heldOutLoss is the runs table's held_out_loss of a finished convergence
// run: its loss at the final point on data it never trained on, which the
// step-size rules rank by (docs/methods.md, "Selection"). It is NaN when
// the run diverged, when its data were read from files (no held-out part
// exists) and when the final point was not kept (a run cut at a rival's
// timeline keeps only its records, so only the objectives whose held-out
// loss a record or the final loss gives have one there).
//
//   - charlm: the validation loss of the last record (the run's end), on
//     the held-out tail of the text (charlm.Model.ValidationLoss).
//   - quadratic: the population loss ½‖x − w*‖², the expected squared
//     error on a fresh row x_i ~ N(0, I) with y_i = x_i·w*, in closed form
//     from the planted weights w* (objectives.RandomQuadratic).
//   - tridiagonal: the final loss f(x) = ½(x − w*)ᵀA(x − w*): its design
//     has XᵀX/n = A exactly, so f is already the loss in expectation over
//     rows of second moment A, with no sampling in it.
//   - logistic: f on a held-out draw of n fresh rows from the same model
//     (rows N(0, I), labels Bernoulli(σ(x·w*)) with the training data's
//     w*), drawn from a seed derived from the data seed (heldOutSeed), λ
//     included, no gradient noise (it is not part of f).
func heldOutLoss(r Run, res *Trained) float64 {
	if res.Diverged || r.Data != "" {
		return math.NaN()
	}
	switch r.Objective {
	case "charlm":
		if n := len(res.Records); n > 0 {
			return res.Records[n-1].ValidationLoss
		}
		return math.NaN()
	case "tridiagonal":
		return res.FinalLoss
	}
	if len(res.X) == 0 {
		return math.NaN()
	}
	switch r.Objective {
	case "quadratic":
		data, err := objectives.RandomQuadratic(r.N, r.D, r.DataSeed)
		if err != nil || len(data.Truth) != len(res.X) {
			return math.NaN()
		}
		var sum float64
		for i, w := range data.Truth {
			e := res.X[i] - w
			sum += e * e
		}
		return sum / 2
	case "logistic":
		l, err := heldOutLogistic(r)
		if err != nil || l.Dim() != len(res.X) {
			return math.NaN()
		}
		return l.Loss(res.X)
	}
	return math.NaN()
}

// heldOutSeed seeds the logistic objective's held-out rows: derived from
// the run's data seed, so that every method and step of a replicate is
// judged on the same held-out rows, and never equal to it, so that they
// are not the training rows.
func heldOutSeed(r Run) uint64 { return deriveSeed(r.DataSeed, "held-out") }

// heldOutLogistic builds the logistic objective on r.N held-out rows drawn
// as objectives.RandomLogistic draws its rows, around the training data's
// planted weights.
func heldOutLogistic(r Run) (*objectives.Linear, error) {
	train, err := objectives.RandomLogistic(r.N, r.D, r.DataSeed)
	if err != nil {
		return nil, err
	}
	rng := objectives.NewRand(heldOutSeed(r), objectives.StreamData)
	n, d := r.N, r.D
	held := &objectives.Dataset{Rows: n, Cols: d, X: make([]float64, n*d), Y: make([]float64, n), Truth: train.Truth}
	for i := range held.X {
		held.X[i] = rng.NormFloat64()
	}
	for i := range held.Y {
		var a float64
		for j, w := range train.Truth {
			a += held.X[i*d+j] * w
		}
		if rng.Float64() < 1/(1+math.Exp(-a)) {
			held.Y[i] = 1
		}
	}
	l2 := objectives.DefaultL2
	if r.L2 != nil {
		l2 = *r.L2
	}
	return objectives.NewLogistic(held, 1, n, l2, 0)
}
