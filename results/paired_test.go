package results

import (
	"math"
	"testing"
)

// TestPairedDifferences checks the rule against hand computation: for
// d = (1, 2, 3, 4, 5) the mean is 3, the sample SD √2.5, and the 97.5 %
// quantile of Student's t with 4 degrees of freedom 2.776445 (any t
// table), so the interval is 3 ± 2.776445·√2.5/√5 = 3 ± 1.963243.
func TestPairedDifferences(t *testing.T) {
	p := PairedDifferences([]float64{1, 2, 3, 4, 5})
	if p.N != 5 || p.Agree != 5 || p.Mean != 3 {
		t.Fatalf("%+v: want 5 seeds, 5 agreeing, mean 3", p)
	}
	if math.Abs(p.Low-(3-1.963243)) > 1e-6 || math.Abs(p.High-(3+1.963243)) > 1e-6 {
		t.Errorf("interval [%g, %g], want 3 ∓ 1.963243", p.Low, p.High)
	}
	if !p.Holds() || p.Sign() != 1 {
		t.Errorf("holds %v sign %d: want a positive claim", p.Holds(), p.Sign())
	}
	if got, want := p.String(), "+3.000 [+1.037, +4.963], 5 of 5 seeds"; got != want {
		t.Errorf("String %q, want %q", got, want)
	}
}

// TestPairedRejects: the cases "beyond the spread" got wrong or that the
// rule must refuse.
func TestPairedRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		d    []float64
	}{
		// Two or three seeds all positive were a claim under the min-max
		// rule; under this one fewer than MinSeeds never are.
		{"three positive seeds", []float64{0.5, 0.6, 0.7}},
		// Four of five positive, but the interval
		// 0.2 ± 2.776445·0.4528/√5 = 0.2 ± 0.562 straddles zero.
		{"one seed against", []float64{0.5, 0.4, 0.3, 0.4, -0.6}},
		{"no differences", []float64{0, 0, 0, 0, 0}},
	} {
		if p := PairedDifferences(c.d); p.Holds() || p.Sign() != 0 {
			t.Errorf("%s: %v holds", c.name, p)
		}
	}
	p := PairedDifferences([]float64{-0.5, -0.4, -0.6, -0.45, -0.55})
	if !p.Holds() || p.Sign() != -1 || p.Agree != 5 {
		t.Errorf("%v: want a negative claim, 5 of 5", p)
	}
	if p := PairedDifferences([]float64{0.1}); !math.IsNaN(p.Low) || p.Holds() {
		t.Errorf("one seed: %+v, want no interval and no claim", p)
	}
}
