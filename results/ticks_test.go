package results

import (
	"slices"
	"testing"
)

func TestLogTicks(t *testing.T) {
	tests := []struct {
		name     string
		min, max float64
		// labels are the expected labelled ticks: the 1-2-5 values of
		// [min, max] by definition of the marker.
		labels []string
		// all is the expected number of ticks, labelled or not: the
		// integer multiples m·10^k (m = 1..9) inside [min, max], and the
		// next finer spacing when labels needed a finer one than 1-2-5.
		all int
	}{
		{"three decades", 1, 1000, []string{"1", "2", "5", "10", "20", "50", "100", "200", "500", "1000"}, 28},
		{"below one", 0.003, 0.2, []string{"0.005", "0.01", "0.02", "0.05", "0.1", "0.2"}, 7 + 9 + 2},
		// Labelled at the integers (1-2-5 gives only 5), so the halves
		// 3.5 ... 8.5 between them are unlabelled ticks: 7 + 6.
		{"within a decade", 3, 9, []string{"3", "4", "5", "6", "7", "8", "9"}, 7 + 6},
		{"six decades", 1e-3, 1e3, []string{"0.001", "0.01", "0.1", "1", "10", "100", "1000"}, 6*9 + 1},
		{"exponent labels", 1e-7, 1e-6, []string{"1e-7", "2e-7", "5e-7", "1e-6"}, 10},
		{"stages 2 to 128", 2, 128, []string{"2", "5", "10", "20", "50", "100"}, 8 + 9 + 1},
		{"non-positive", 0, 10, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ticks := LogTicks{}.Ticks(tc.min, tc.max)
			var labels []string
			for _, tk := range ticks {
				if tk.Value < tc.min*(1-1e-12) || tk.Value > tc.max*(1+1e-12) {
					t.Errorf("tick %g outside [%g, %g]", tk.Value, tc.min, tc.max)
				}
				if tk.Label != "" {
					labels = append(labels, tk.Label)
				}
			}
			if !slices.Equal(labels, tc.labels) || len(ticks) != tc.all {
				t.Errorf("labels %q (%d ticks), want %q (%d ticks)", labels, len(ticks), tc.labels, tc.all)
			}
		})
	}
}

// TestLogTicksManyDecades: up to twelve decades every power of ten is
// labelled; beyond, every second (or further) power, so labels stay apart.
func TestLogTicksManyDecades(t *testing.T) {
	labelsOf := func(min, max float64) []string {
		var labels []string
		for _, tk := range (LogTicks{}).Ticks(min, max) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		return labels
	}
	want := []string{"1e-6", "1e-5", "0.0001", "0.001", "0.01", "0.1", "1", "10", "100", "1000", "10000"}
	if got := labelsOf(1e-6, 1e4); !slices.Equal(got, want) {
		t.Errorf("ten decades: labels %q, want %q", got, want)
	}
	want = []string{"1e-20", "1e-18", "1e-16", "1e-14", "1e-12", "1e-10", "1e-8", "1e-6", "0.0001", "0.01", "1", "100", "10000"}
	if got := labelsOf(1e-20, 1e4); !slices.Equal(got, want) {
		t.Errorf("24 decades: labels %q, want %q", got, want)
	}
}

// TestLogTicksNarrow: data within one or two decades get at least
// minLogLabels labels. The expected labels are the first spacing of the
// ladder 1-2-5, every integer, 0.5, 0.2, 0.1 (× 10^k) that puts four or
// more inside the range, counted by hand.
func TestLogTicksNarrow(t *testing.T) {
	tests := []struct {
		name     string
		min, max float64
		labels   []string
	}{
		// 1-2-5 gives 0.5 only, integers 0.4 and 0.5, halves four.
		{"inside one decade", 0.37, 0.56, []string{"0.4", "0.45", "0.5", "0.55"}},
		// 1-2-5: 2; integers: 2, 3; halves: 2, 2.5, 3; fifths: seven.
		{"a loss near 2.5", 1.9, 3.25, []string{"2", "2.2", "2.4", "2.6", "2.8", "3", "3.2"}},
		// Across a power of ten: 1-2-5 gives 1 only; integers 0.7, 0.8,
		// 0.9, 1, 2.
		{"across a power of ten", 0.65, 2.5, []string{"0.7", "0.8", "0.9", "1", "2"}},
		// Two decades: 1-2-5 already gives six.
		{"two decades", 0.3, 25, []string{"0.5", "1", "2", "5", "10", "20"}},
		// 1-2-5 gives four labels, 1 to 10, none where the data reach
		// below 1: the lowest multiple of that decade is labelled too.
		{"reaching below one", 0.6, 12, []string{"0.6", "1", "2", "5", "10"}},
		// A tenth of a decade near 1e-7, in exponent form: 1-2-5,
		// integers and halves give none, 0.2 one (1.2e-7), 0.1 three,
		// 0.05 six.
		{"exponent mantissas", 1.05e-7, 1.3e-7, []string{"1.05e-7", "1.1e-7", "1.15e-7", "1.2e-7", "1.25e-7", "1.3e-7"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var labels []string
			for _, tk := range (LogTicks{}).Ticks(tc.min, tc.max) {
				if tk.Label != "" {
					labels = append(labels, tk.Label)
				}
			}
			if !slices.Equal(labels, tc.labels) {
				t.Errorf("labels %q, want %q", labels, tc.labels)
			}
			if len(labels) < minLogLabels {
				t.Errorf("%d labels, want at least %d", len(labels), minLogLabels)
			}
		})
	}
}

// TestLinearTicks: the labels are the multiples of the finest 1-2-5 step
// with at most ten intervals in the range, worked out by hand.
func TestLinearTicks(t *testing.T) {
	tests := []struct {
		name     string
		min, max float64
		labels   []string
		all      int // labelled and unlabelled
	}{
		// Step 1 (8 intervals), fifths between.
		{"a makespan of 8 steps", 0, 8, []string{"0", "1", "2", "3", "4", "5", "6", "7", "8"}, 41},
		// 0.337/10 = 0.0337: step 0.05, 6 labels plus 0; fifths between
		// up to 0.33.
		{"a makespan of 0.337 s", 0, 0.337, []string{"0.00", "0.05", "0.10", "0.15", "0.20", "0.25", "0.30"}, 34},
		// 6.3/10 = 0.63: step 1; 1000/10: step 100; step 2 for 0..15.
		{"6.3 s", 0, 6.3, []string{"0", "1", "2", "3", "4", "5", "6"}, 32},
		{"1000 steps", 0, 1000, []string{"0", "100", "200", "300", "400", "500", "600", "700", "800", "900", "1000"}, 51},
		{"15 stages", 0, 15, []string{"0", "2", "4", "6", "8", "10", "12", "14"}, 16},
		{"empty", 1, 1, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ticks := LinearTicks{}.Ticks(tc.min, tc.max)
			var labels []string
			for _, tk := range ticks {
				if tk.Value < tc.min-1e-12 || tk.Value > tc.max+1e-12 {
					t.Errorf("tick %g outside [%g, %g]", tk.Value, tc.min, tc.max)
				}
				if tk.Label != "" {
					labels = append(labels, tk.Label)
				}
			}
			if !slices.Equal(labels, tc.labels) || len(ticks) != tc.all {
				t.Errorf("labels %q (%d ticks), want %q (%d ticks)", labels, len(ticks), tc.labels, tc.all)
			}
		})
	}
}
