package optim

import (
	"math"
	"testing"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

func quadratic(t testing.TB, n, d, stages, batch int, seed uint64) *objectives.Linear {
	t.Helper()
	data, err := objectives.RandomQuadratic(n, d, seed)
	if err != nil {
		t.Fatal(err)
	}
	f, err := objectives.NewLeastSquares(data, stages, batch)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func tridiagonal(t testing.TB, n, d, stages, batch int, seed uint64) *objectives.Linear {
	t.Helper()
	data, err := objectives.TridiagonalQuadratic(n, d, 0.01, seed)
	if err != nil {
		t.Fatal(err)
	}
	f, err := objectives.NewLeastSquares(data, stages, batch)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func logistic(t testing.TB, n, d, stages, batch int, noise float64, seed uint64) *objectives.Linear {
	t.Helper()
	data, err := objectives.RandomLogistic(n, d, seed)
	if err != nil {
		t.Fatal(err)
	}
	f, err := objectives.NewLogistic(data, stages, batch, objectives.DefaultL2, noise)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// plain hides every method of an objective but the Objective interface,
// so the optimizers take their generic path (one full gradient per
// microbatch, the loss evaluated afresh).
type plain struct{ objectives.Objective }

func generate(t testing.TB, family string, sh pipeline.Shape) *sim.Timeline {
	t.Helper()
	tab, err := pipeline.Generate(family, sh)
	if err != nil {
		t.Fatal(err)
	}
	return sim.FromGrid(tab)
}

func mustRun(t testing.TB, obj objectives.Objective, m Method, set Settings) *Result {
	t.Helper()
	res, err := Run(obj, m, set)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// sgdStep applies x ← x - γ∇f_b(x) with the objective's own gradient: the
// independent computation the replays are checked against.
func sgdStep(obj objectives.Objective, x []float64, b int, gamma float64) {
	g := make([]float64, len(x))
	obj.Gradient(g, x, b, nil)
	for j := range x {
		x[j] -= gamma * g[j]
	}
}

func closeVectors(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	for j := range got {
		if math.Abs(got[j]-want[j]) > tol*(1+math.Abs(want[j])) {
			t.Errorf("%s[%d] = %.17g, want %.17g", what, j, got[j], want[j])
			return
		}
	}
}

func identicalResults(t *testing.T, what string, a, b *Result) {
	t.Helper()
	if len(a.Records) != len(b.Records) {
		t.Fatalf("%s: %d records, %d", what, len(a.Records), len(b.Records))
	}
	for i := range a.Records {
		ra, rb := a.Records[i], b.Records[i]
		if ra.Updates != rb.Updates || math.Float64bits(ra.Loss) != math.Float64bits(rb.Loss) {
			t.Fatalf("%s: record %d differs: %+v and %+v", what, i, ra, rb)
		}
	}
	for j := range a.X {
		if math.Float64bits(a.X[j]) != math.Float64bits(b.X[j]) {
			t.Fatalf("%s: x[%d] = %.17g and %.17g", what, j, a.X[j], b.X[j])
		}
	}
}
