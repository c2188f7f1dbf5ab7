package tune

import (
	"math/rand/v2"
	"testing"
)

// localSearchProblems random tiny problems per seed, the first half
// 2 ranks × 7 layers and the second 3 ranks × 8 layers (tinyProblem, from
// rand.NewPCG(seed, 1)), each tuned with and without the memory limit of
// memoryLimits, make the 2 × localSearchProblems cases per seed of the
// measurement in docs/tuner.md.
const localSearchProblems = 70

// localSearchRate tunes each case with enumeration turned off and counts
// the cases where the local search's choice is as fast as the best of
// every contiguous partition × schedule × count (bruteForce); worst is the
// largest relative excess time per sample over the others.
func localSearchRate(t *testing.T, seed uint64) (matched, cases int, worst float64) {
	src := rand.New(rand.NewPCG(seed, 1))
	shapes := []struct{ ranks, layers int }{{2, 7}, {3, 8}}
	for i := range localSearchProblems {
		sh := shapes[i*len(shapes)/localSearchProblems]
		p := tinyProblem(src, sh.ranks, sh.layers)
		all := bruteForce(t, p)
		p.Exhaustive = -1
		for _, limit := range memoryLimits(p, all) {
			p.MemoryBytes = limit
			want := fastestWithin(all, limit)
			res, err := Tune(p)
			if err != nil {
				t.Fatal(err)
			}
			cases++
			excess := res.Best.PerSample/want.PerSample - 1
			if excess <= 1e-12 {
				matched++
			} else {
				t.Logf("seed %d problem %d, limit %.4g: local search %s M=%d %v, brute force %s M=%d %v, %.2f%% slower",
					seed, i, limit, res.Best.Schedule, res.Best.Microbatches, res.Best.Partition,
					want.Schedule, want.Microbatches, want.Partition, 100*excess)
			}
			worst = max(worst, excess)
		}
	}
	return matched, cases, worst
}

// TestLocalSearchMatchRate asserts the match rate measured on 140 cases
// per seed. Seed 7 is the set on which the search with two starts
// (balanced and even) matched 136 and was 8.33% slower in the worst case;
// seed 21, not used while choosing the third start, it matched 138 and
// was 11.51% slower in the worst. With the rank-balanced start both
// measured 140 of 140; the floor asserted is that measurement.
func TestLocalSearchMatchRate(t *testing.T) {
	for _, seed := range []uint64{7, 21} {
		matched, cases, worst := localSearchRate(t, seed)
		t.Logf("seed %d: local search matched brute force in %d of %d cases; worst excess %.2f%%", seed, matched, cases, 100*worst)
		if want := 2 * localSearchProblems; cases != want || matched < 140 {
			t.Errorf("seed %d: matched %d of %d cases, want at least 140 of %d", seed, matched, cases, want)
		}
	}
}
