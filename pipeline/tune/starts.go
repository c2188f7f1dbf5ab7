package tune

// rankLoads returns the compute time of each rank: the seconds of the
// layers of the stages placed on it.
func rankLoads(part, placement []int, ranks int, seconds []float64) []float64 {
	load := make([]float64, ranks)
	next := 0
	for s, n := range part {
		for _, c := range seconds[next : next+n] {
			load[placement[s]] += c
		}
		next += n
	}
	return load
}

// rankSpread scores a partition by its rank loads: the busiest rank's
// time first, then the sum of squared loads, so that among partitions
// with the same bottleneck the more even one wins.
func rankSpread(load []float64) (worst, squares float64) {
	for _, l := range load {
		worst = max(worst, l)
		squares += l * l
	}
	return worst, squares
}

// rankBalanced improves partition, without simulating, so that
// the busiest rank's compute time falls: it moves one layer between any
// two stages, the best move of each round, while the busiest rank's time
// (then the sum of squared rank times) falls. Where each rank holds one
// stage this is BalancedPartition's aim; where a rank holds several
// (interleaved loop or V placement), balancing stages does not balance
// ranks, and this start does. It returns a local optimum of the proxy.
func rankBalanced(partition, placement []int, ranks int, seconds []float64) []int {
	cur := append([]int(nil), partition...)
	worst, squares := rankSpread(rankLoads(cur, placement, ranks, seconds))
	for {
		var next []int
		for from := range cur {
			for to := range cur {
				if from == to {
					continue
				}
				part := move{from, to}.apply(cur)
				if part == nil {
					continue
				}
				w, q := rankSpread(rankLoads(part, placement, ranks, seconds))
				if w < worst || w == worst && q < squares {
					next, worst, squares = part, w, q
				}
			}
		}
		if next == nil {
			return cur
		}
		cur = next
	}
}
