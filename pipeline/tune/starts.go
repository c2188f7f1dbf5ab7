package tune

// rankLoads returns the compute time of each rank: the seconds of the
// layers of the stages placed on it, part[p] layers on each stage of
// model part p. A replicated part counts once on each rank that runs it
// (Chimera's two routes carry the same number of microbatches).
func rankLoads(part []int, l layout, seconds []float64) []float64 {
	first := make([]int, len(part))
	for p := 1; p < len(part); p++ {
		first[p] = first[p-1] + part[p-1]
	}
	load := make([]float64, l.ranks)
	for s, r := range l.placement {
		p := l.stagePart[s]
		for _, c := range seconds[first[p] : first[p]+part[p]] {
			load[r] += c
		}
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

// rankBalanced improves partition, without simulating, so that the
// busiest rank's compute time falls: it moves one layer between any two
// model parts, the best move of each round, while the busiest rank's time
// (then the sum of squared rank times) falls. Where each rank holds one
// stage this is BalancedPartition's aim; where a rank holds several
// (interleaved loop or V placement) or two replicas (Chimera: parts r and
// P-1-r on rank r), balancing parts does not balance ranks, and this
// start does. It returns a local optimum of the proxy.
func rankBalanced(partition []int, l layout, seconds []float64) []int {
	cur := append([]int(nil), partition...)
	worst, squares := rankSpread(rankLoads(cur, l, seconds))
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
				w, q := rankSpread(rankLoads(part, l, seconds))
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
