package tune

import (
	"fmt"
	"math"
)

// BalancedPartition cuts the per-layer costs into stages contiguous runs of
// at least one layer each so that the most expensive stage is as cheap as
// possible, and returns the number of layers of each stage. It is the
// classic linear-partition dynamic programme, O(stages · layers²); among
// cuts with the same bottleneck it takes the first found in the scan.
func BalancedPartition(costs []float64, stages int) ([]int, error) {
	n := len(costs)
	if stages < 1 || n < stages {
		return nil, fmt.Errorf("tune: cannot cut %d layers into %d stages of at least one layer", n, stages)
	}
	prefix := make([]float64, n+1)
	for i, c := range costs {
		prefix[i+1] = prefix[i] + c
	}
	// best[k][i]: the smallest bottleneck of the first i layers in k stages;
	// cut[k][i]: where the k-th stage of that solution starts.
	best := make([][]float64, stages+1)
	cut := make([][]int, stages+1)
	for k := range best {
		best[k] = make([]float64, n+1)
		cut[k] = make([]int, n+1)
		for i := range best[k] {
			best[k][i] = math.Inf(1)
		}
	}
	best[0][0] = 0
	for k := 1; k <= stages; k++ {
		for i := k; i <= n-(stages-k); i++ {
			for j := k - 1; j < i; j++ {
				b := max(best[k-1][j], prefix[i]-prefix[j])
				if b < best[k][i] {
					best[k][i], cut[k][i] = b, j
				}
			}
		}
	}
	part := make([]int, stages)
	for k, i := stages, n; k > 0; k-- {
		j := cut[k][i]
		part[k-1] = i - j
		i = j
	}
	return part, nil
}

// Bottleneck returns the cost of the most expensive stage of partition.
func Bottleneck(costs []float64, partition []int) float64 {
	worst, next := 0.0, 0
	for _, n := range partition {
		sum := 0.0
		for _, c := range costs[next : next+n] {
			sum += c
		}
		worst = max(worst, sum)
		next += n
	}
	return worst
}

// Partitions returns the number of ways to cut layers into stages
// contiguous runs of at least one layer, C(layers-1, stages-1), or limit+1
// when it exceeds limit.
func Partitions(layers, stages, limit int) int {
	if stages < 1 || layers < stages {
		return 0
	}
	n, k := layers-1, stages-1
	k = min(k, n-k)
	count := 1
	for i := 1; i <= k; i++ {
		count = count * (n - k + i) / i // exact: a product of i consecutive integers over i!
		if count > limit {
			return limit + 1
		}
	}
	return count
}

// EachPartition calls visit with every cut of layers into stages
// contiguous runs of at least one layer, in lexicographic order; visit
// must not keep the slice. It stops at the first error visit returns.
func EachPartition(layers, stages int, visit func([]int) error) error {
	part := make([]int, stages)
	var rec func(stage, left int) error
	rec = func(stage, left int) error {
		if stage == stages-1 {
			part[stage] = left
			return visit(part)
		}
		for take := 1; take <= left-(stages-1-stage); take++ {
			part[stage] = take
			if err := rec(stage+1, left-take); err != nil {
				return err
			}
		}
		return nil
	}
	if stages < 1 || layers < stages {
		return nil
	}
	return rec(0, layers)
}
