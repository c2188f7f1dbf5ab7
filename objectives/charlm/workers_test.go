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
