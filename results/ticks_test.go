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
		// integer multiples m·10^k (m = 1..9) inside [min, max].
		all int
	}{
		{"three decades", 1, 1000, []string{"1", "2", "5", "10", "20", "50", "100", "200", "500", "1000"}, 28},
		{"below one", 0.003, 0.2, []string{"0.005", "0.01", "0.02", "0.05", "0.1", "0.2"}, 7 + 9 + 2},
		{"within a decade", 3, 9, []string{"3", "4", "5", "6", "7", "8", "9"}, 7},
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

// TestLogTicksManyDecades: beyond eight decades only every second power
// of ten is labelled, so labels stay apart.
func TestLogTicksManyDecades(t *testing.T) {
	var labels []string
	for _, tk := range (LogTicks{}).Ticks(1e-10, 1e2) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	want := []string{"1e-10", "1e-8", "1e-6", "0.0001", "0.01", "1", "100"}
	if !slices.Equal(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
}
