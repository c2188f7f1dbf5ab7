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

// localSearchRate tunes each case, over tinyProblem's link with its
// bandwidth times faster, with enumeration turned off and counts the cases
// where the local search's choice is as fast as the best of every
// contiguous partition × schedule × count (bruteForce); worst is the
// largest relative excess time per sample over the others, and chimera
// counts the cases whose brute-force optimum is Chimera.
func localSearchRate(t *testing.T, seed uint64, faster float64) (matched, cases, chimera int, worst float64) {
	src := rand.New(rand.NewPCG(seed, 1))
	shapes := []struct{ ranks, layers int }{{2, 7}, {3, 8}}
	for i := range localSearchProblems {
		sh := shapes[i*len(shapes)/localSearchProblems]
		p := tinyProblem(src, sh.ranks, sh.layers)
		p.Config.Link.Bandwidth *= faster
		all := bruteForce(t, p)
		p.Exhaustive = -1
		for _, limit := range memoryLimits(p, all) {
			p.MemoryBytes = limit
			want := fastestWithin(all, limit)
			if want.Schedule.Family == "chimera" {
				chimera++
			}
			res, err := Tune(p)
			if err != nil {
				t.Fatal(err)
			}
			cases++
			excess := res.Best.PerSample/want.PerSample - 1
			if excess <= 1e-12 {
				matched++
			} else {
				t.Logf("seed %d ×%g link, problem %d, limit %.4g: local search %s M=%d %v, brute force %s M=%d %v, %.2f%% slower",
					seed, faster, i, limit, res.Best.Schedule, res.Best.Microbatches, res.Best.Partition,
					want.Schedule, want.Microbatches, want.Partition, 100*excess)
			}
			worst = max(worst, excess)
		}
	}
	return matched, cases, chimera, worst
}

// TestLocalSearchMatchRate asserts the match rate measured on 140 cases
// per seed. Seed 7 is the set on which the search with two starts
// (balanced and even) matched 136 and was 8.33% slower in the worst case;
// seed 21, not used while choosing the third start, it matched 138 and
// was 11.51% slower in the worst. With the rank-balanced start both
// measured 140 of 140, and still do with Chimera among the schedules: on
// tinyProblem's 1 GB/s link its gradient all-reduce makes it the optimum
// of no case. On a link ten times faster Chimera is the optimum of 36 of
// the 140 cases of either seed, and the search matched 136 (seed 7, worst
// 0.43% slower) and 134 (seed 21, worst 1.60%). Chimera on 2 ranks
// makes 2 and 4 of the misses: its two-part cut stops at 4 3 while 2 5 is
// faster (the all-reduce of part 0, which ends last, is exposed, so the
// time is not unimodal in the cut). The others are one 3-rank problem
// per seed, missed with and without the limit (zb-v's partition, and
// zb-h1 chosen where zb-v was best). The floors asserted are those
// measurements.
func TestLocalSearchMatchRate(t *testing.T) {
	for _, tc := range []struct {
		seed           uint64
		faster         float64
		least, chimera int
	}{{7, 1, 140, 0}, {21, 1, 140, 0}, {7, 10, 136, 36}, {21, 10, 134, 36}} {
		matched, cases, chimera, worst := localSearchRate(t, tc.seed, tc.faster)
		t.Logf("seed %d, link ×%g: local search matched brute force in %d of %d cases (Chimera the optimum of %d); worst excess %.2f%%",
			tc.seed, tc.faster, matched, cases, chimera, 100*worst)
		if want := 2 * localSearchProblems; cases != want || matched < tc.least || chimera != tc.chimera {
			t.Errorf("seed %d, link ×%g: matched %d of %d cases, Chimera optimal in %d; want at least %d of %d, Chimera in %d",
				tc.seed, tc.faster, matched, cases, chimera, tc.least, want, tc.chimera)
		}
	}
}
