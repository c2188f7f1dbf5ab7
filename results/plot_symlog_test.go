package results

import (
	"math"
	"testing"
)

// The symmetric-log scale is odd, linear near zero and logarithmic far
// from it: with C = 0.01, f(±0.09) = ±log10(10) = ±1 and f(±0.99) = ±2, so
// on [−0.99, 0.99] zero sits at the middle and ±0.09 at a quarter from it.
func TestSymLogScale(t *testing.T) {
	s := symLogScale{C: 0.01}
	for _, c := range []struct{ y, want float64 }{{0, 0.5}, {0.09, 0.75}, {-0.09, 0.25}, {0.99, 1}, {-0.99, 0}} {
		if got := s.Normalize(-0.99, 0.99, c.y); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Normalize(%g) = %g, want %g", c.y, got, c.want)
		}
	}
	if c := symLogLinear([]float64{0, -0.034, 0.5}); c != 0.01 {
		t.Errorf("linear width %g, want 0.01 (the decade of the smallest magnitude, 0.034)", c)
	}
	ticks := symLogTicks{C: 0.01}.Ticks(-0.5, 0.05)
	want := map[float64]bool{0: true, 0.01: true, -0.01: true, -0.1: true}
	if len(ticks) != len(want) {
		t.Fatalf("ticks %v, want 0, ±0.01, −0.1", ticks)
	}
	// Over more than two decades beyond C, ±C is left out.
	if wide := (symLogTicks{C: 0.01}).Ticks(-5, 5); len(wide) != 5 {
		t.Errorf("ticks %v, want 0, ±0.1, ±1", wide)
	}
	for _, tk := range ticks {
		if !want[tk.Value] {
			t.Errorf("tick %g not expected", tk.Value)
		}
	}
}
