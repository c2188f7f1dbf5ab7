package optim

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestPowersOfTwo(t *testing.T) {
	if got := PowersOfTwo(-2, 1); !slices.Equal(got, []float64{0.25, 0.5, 1, 2}) {
		t.Errorf("PowersOfTwo(-2, 1) = %v", got)
	}
}

func curve(losses ...float64) *Result {
	r := &Result{FinalLoss: losses[len(losses)-1]}
	for i, l := range losses {
		r.Records = append(r.Records, Record{Updates: i, Loss: l})
	}
	return r
}

// geometric returns a linearly converging curve f_k = f0·q^k.
func geometric(f0, q float64, n int) *Result {
	l := make([]float64, n)
	for k := range l {
		l[k] = f0 * math.Pow(q, float64(k))
	}
	return curve(l...)
}

// plateau returns a curve that falls from f0 to a flat level.
func plateau(f0, level float64, n int) *Result {
	l := make([]float64, n)
	for k := range l {
		l[k] = level + (f0-level)*math.Exp(-float64(k))
	}
	return curve(l...)
}

// BestFinal averages the final loss over seeds and takes the lowest.
func TestBestFinal(t *testing.T) {
	steps := []float64{0.25, 0.5, 1}
	runs := [][]*Result{
		{curve(3, 2), curve(3, 1.6)}, // mean 1.8
		{curve(3, 1), curve(3, 2)},   // mean 1.5
		{curve(3, 0.1), {Diverged: true, FinalLoss: math.Inf(1)}},
	}
	c, err := BestFinal{}.Choose(steps, runs)
	if err != nil || c.Index != 1 || c.Score != 1.5 || c.Rule != "best-final" {
		t.Errorf("chose %+v, %v; want step 0.5 with mean 1.5", c, err)
	}
}

// The stable rule (docs/reference.md §1.7) rejects a fast linearly converging
// curve (its tail's coefficient of variation is large) and, among stable
// plateaus within 5% of the best tail, takes the smallest step.
func TestStableRule(t *testing.T) {
	steps := []float64{0.125, 0.25, 0.5, 1}
	runs := [][]*Result{
		{plateau(5, 1.04, 40)}, // within 5% of the best: chosen, smallest
		{plateau(5, 1.00, 40)}, // best plateau
		{plateau(5, 1.20, 40)}, // stable but 20% worse
		{geometric(5, 0.5, 40)},
	}
	c, err := Stable{}.Choose(steps, runs)
	if err != nil || c.StepSize != 0.125 || c.Rule != "stable" {
		t.Errorf("chose %+v, %v; want 0.125", c, err)
	}
	if _, err := (Stable{}).Choose(steps[3:], runs[3:]); !errors.Is(err, ErrNoStepSize) {
		t.Errorf("a lone linearly converging curve: %v, want ErrNoStepSize", err)
	}
	bf, _ := BestFinal{}.Choose(steps, runs)
	if bf.StepSize != 1 {
		t.Errorf("BestFinal chose %g, want the converging step 1", bf.StepSize)
	}
}
