package charlm

import (
	"math"
	"testing"
)

// The losses over several workers are the one-goroutine losses bit for
// bit: each batch's loss is computed alone on a model of its own and the
// terms are added in batch order (meanLoss), so the reference is the
// same model run with Workers = 1, compared with ==. Three points (Init
// and two perturbations of it) make a worker's leftover activations
// from a previous call matter if they did.
func TestWorkersSameBits(t *testing.T) {
	text, _ := MarkovCorpus(1, 20000)
	cfg := Config{Stages: 4, Embed: 8, Heads: 2, SeqLen: 8, Batch: 4, EvalBatches: 7, Seed: 1}
	one, err := New(cfg, text)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(one.ValidationBatches()); n < 10 {
		t.Fatalf("%d validation windows, want at least 10 to split", n)
	}
	x := one.Init()
	for _, workers := range []int{2, 3, 5} {
		cfg.Workers = workers
		many, err := New(cfg, text)
		if err != nil {
			t.Fatal(err)
		}
		for p := range 3 {
			y := append([]float64(nil), x...)
			for i := range y {
				y[i] += 0.01 * float64(p) * math.Sin(float64(i))
			}
			if a, b := one.Loss(y), many.Loss(y); math.Float64bits(a) != math.Float64bits(b) {
				t.Errorf("workers %d, point %d: Loss %.17g, one worker %.17g", workers, p, b, a)
			}
			if a, b := one.ValidationLoss(y), many.ValidationLoss(y); math.Float64bits(a) != math.Float64bits(b) {
				t.Errorf("workers %d, point %d: ValidationLoss %.17g, one worker %.17g", workers, p, b, a)
			}
		}
	}
}

// A negative worker count is refused, naming the field.
func TestWorkersNegative(t *testing.T) {
	text, _ := MarkovCorpus(1, 20000)
	cfg := DefaultConfig()
	cfg.Workers = -1
	if _, err := New(cfg, text); err == nil || err.Error() != "charlm: invalid config: Workers = -1, need 0 (one) or more" {
		t.Errorf("New with Workers = -1: %v", err)
	}
}

// gemmNN with its rows spread over 2, 3 or 5 goroutines forms every
// element as the one-goroutine kernel does, compared bit for bit with
// gemmNNRows (the reference: one goroutine, as before Workers), on shapes
// whose row and column counts leave every remainder (rows not a multiple
// of four or two, columns not a multiple of eight or four), with and
// without bias, each product large enough to be spread (parallelFMAs).
func TestParallelRowsSameBits(t *testing.T) {
	for _, sh := range [][3]int{{512, 64, 192}, {37, 33, 65}, {513, 64, 7}, {66, 256, 64}, {130, 17, 31}} {
		n, k, m := sh[0], sh[1], sh[2]
		if n*k*m < parallelFMAs {
			t.Fatalf("%d×%d×%d is below parallelFMAs: not spread", n, k, m)
		}
		a, b, bias := make([]float64, n*k), make([]float64, k*m), make([]float64, m)
		for i := range a {
			a[i] = math.Sin(float64(i) * 0.37)
		}
		for i := range b {
			b[i] = math.Cos(float64(i) * 0.11)
		}
		for i := range bias {
			bias[i] = float64(i) / 7
		}
		for _, withBias := range [][]float64{nil, bias} {
			want := make([]float64, n*m)
			gemmNNRows(want, a, b, withBias, n, k, m, &linearScratch{})
			for _, workers := range []int{2, 3, 5} {
				got := make([]float64, n*m)
				gemmNN(got, a, b, withBias, n, k, m, &linearScratch{rows: make([]linearScratch, workers)})
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%d×%d×%d, bias %v, %d workers: c[%d] = %.17g, one goroutine %.17g", n, k, m, withBias != nil, workers, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// Gradient with the products spread over 2 or 3 workers is the
// one-worker gradient bit for bit, at a shape whose products are spread
// (Embed 16, SeqLen 16, Batch 4: 64 tokens by 16 by 48 for QKV).
func TestWorkersSameGradient(t *testing.T) {
	text, _ := MarkovCorpus(1, 20000)
	cfg := Config{Stages: 4, Embed: 16, Heads: 2, SeqLen: 16, Batch: 4, Seed: 1}
	one, err := New(cfg, text)
	if err != nil {
		t.Fatal(err)
	}
	x := one.Init()
	want := make([]float64, one.Dim())
	one.Gradient(want, x, 3, nil)
	for _, workers := range []int{2, 3} {
		cfg.Workers = workers
		many, err := New(cfg, text)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, many.Dim())
		many.Gradient(got, x, 3, nil)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%d workers: gradient[%d] = %.17g, one worker %.17g", workers, i, got[i], want[i])
			}
		}
	}
}
