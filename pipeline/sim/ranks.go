package sim

import "math"

// Ranks is the one ranking rule of schedule families, for pipelab compare,
// the schedules measure and the tables (results.Ranks): the smallest value ranks 1, and a
// value's rank is one more than the number of values below it (competition
// ranking, 1, 1, 3), where values within a relative 1e-9 of each other tie
// (GPipe's and 1F1B's makespans are sums of the same times in another
// order, a rounding apart). A NaN, a value not measured, gets rank 0.
func Ranks(values []float64) []int {
	out := make([]int, len(values))
	for i, v := range values {
		if math.IsNaN(v) {
			continue
		}
		out[i] = 1
		for _, w := range values {
			if w < v-1e-9*math.Abs(v) {
				out[i]++
			}
		}
	}
	return out
}
