package tune

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// compositions calls visit with every way to cut n layers into k stages
// of at least one layer.
func compositions(n, k int, visit func([]int)) {
	part := make([]int, k)
	var rec func(stage, left int)
	rec = func(stage, left int) {
		if stage == k-1 {
			part[stage] = left
			visit(part)
			return
		}
		for take := 1; take <= left-(k-1-stage); take++ {
			part[stage] = take
			rec(stage+1, left-take)
		}
	}
	rec(0, n)
}

func TestBalancedPartitionMatchesBruteForce(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		n := 1 + src.IntN(9)
		k := 1 + src.IntN(n)
		costs := make([]float64, n)
		for i := range costs {
			costs[i] = float64(1 + src.IntN(20))
		}
		// The smallest bottleneck over every contiguous cut.
		want := -1.0
		compositions(n, k, func(p []int) {
			if b := Bottleneck(costs, p); want < 0 || b < want {
				want = b
			}
		})
		part, err := BalancedPartition(costs, k)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, c := range part {
			if c < 1 {
				t.Fatalf("trial %d: empty stage in %v", trial, part)
			}
			sum += c
		}
		if sum != n {
			t.Fatalf("trial %d: partition %v covers %d of %d layers", trial, part, sum, n)
		}
		if got := Bottleneck(costs, part); got != want {
			t.Errorf("trial %d: costs %v in %d stages: bottleneck %g (%v), brute force %g", trial, costs, k, got, part, want)
		}
	}
}

func TestBalancedPartitionRejects(t *testing.T) {
	if _, err := BalancedPartition([]float64{1, 2}, 3); err == nil {
		t.Error("2 layers in 3 stages accepted")
	}
	if _, err := BalancedPartition([]float64{1, 2}, 0); err == nil {
		t.Error("0 stages accepted")
	}
}

func TestEachPartitionAndCount(t *testing.T) {
	for layers := 1; layers <= 9; layers++ {
		for stages := 1; stages <= layers; stages++ {
			var want [][]int
			compositions(layers, stages, func(p []int) { want = append(want, slices.Clone(p)) })
			var got [][]int
			if err := EachPartition(layers, stages, func(p []int) error {
				got = append(got, slices.Clone(p))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, want, slices.Equal[[]int]) {
				t.Errorf("EachPartition(%d, %d) = %v, want %v", layers, stages, got, want)
			}
			// C(layers-1, stages-1) by the recursive enumeration above.
			if n := Partitions(layers, stages, 1<<30); n != len(want) {
				t.Errorf("Partitions(%d, %d) = %d, want %d", layers, stages, n, len(want))
			}
		}
	}
	// C(81, 15) is about 8e15: the count stops past the limit.
	if n := Partitions(82, 16, 1000); n != 1001 {
		t.Errorf("Partitions(82, 16, 1000) = %d, want the limit + 1", n)
	}
}
