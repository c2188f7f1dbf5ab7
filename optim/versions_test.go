package optim

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// versions.at finds what a scan over every version ever pushed finds (the
// reference: the newest version stamped at or before i) for every read an
// RPD iteration k can make, i in [k - δ, k], and refuses reads more than δ
// updates behind the newest stamp or before the start. The block steps at
// random iterations as one of S blocks does: evenly (one iteration in
// four), in bursts (runs of up to 3δ+3 steps in a row between idle
// stretches, so that the versions a read can reach first grow past the
// ring and then shrink far below it), and rarely (gaps of 60 iterations,
// so that a read before the newest stamp falls back on a version pushed
// long ago). Each history is checked plain and with bucket indexes of
// several bucket lengths and windows. The ring must hold exactly the power
// of two at or above the most versions reachable at once, counted from the
// scan.
func TestVersionsAtIsNewestAtOrBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	patterns := []struct {
		name  string
		steps func(delta int) func() bool // whether the block steps at the next iteration
	}{
		{"even", func(int) func() bool { return func() bool { return rng.IntN(4) == 0 } }},
		{"bursts", func(delta int) func() bool {
			left, stepping := 0, false
			return func() bool {
				for left == 0 {
					stepping = !stepping
					left = rng.IntN(3*delta + 4)
				}
				left--
				return stepping
			}
		}},
		{"rare", func(int) func() bool { return func() bool { return rng.IntN(60) == 0 } }},
	}
	for _, p := range patterns {
		for _, keep := range []int{1, 2, 3, 7, 64} {
			checkVersionsAt(t, p.name, keep, p.steps(keep-1), nil)
			for _, ix := range [][2]int{{1, 1}, {4, 2}, {3 * keep, 3}, {20, 8}, {keep - 1, 4}} {
				checkVersionsAt(t, p.name, keep, p.steps(keep-1), func(v *versions) { v.index(ix[0], ix[1]) })
			}
		}
	}
}

func checkVersionsAt(t *testing.T, name string, keep int, steps func() bool, index func(*versions)) {
	t.Helper()
	delta := keep - 1
	v := newVersions(keep, []float64{0})
	if index != nil {
		index(v)
	}
	stamps := []int{0} // every version pushed, in order
	scan := func(i int) int {
		for n := len(stamps) - 1; n >= 0; n-- {
			if stamps[n] <= i {
				return stamps[n]
			}
		}
		return -1
	}
	peak := 1 // the most versions reachable at once
	for k := 0; k < 30*keep+60; k++ {
		newest := stamps[len(stamps)-1]
		for i := newest - delta - 2; i <= k+1; i++ { // newest ≤ k: every read of iteration k and older ones
			wantOK := i >= 0 && i >= newest-delta
			got, ok := v.at(i)
			if ok != wantOK || ok && got[0] != float64(scan(i)) {
				t.Fatalf("%s steps, keep %d, index %v, iteration %d, newest stamp %d: at(%d) = %v, %v; want %d, %v",
					name, keep, v.starts != nil, k, newest, i, got, ok, scan(i), wantOK)
			}
		}
		if !steps() {
			continue
		}
		v.push(k+1, []float64{float64(k + 1)})
		stamps = append(stamps, k+1)
		reachable := 0 // stamped after k+1 - δ, and the one current then
		for _, s := range stamps {
			if s > k+1-delta {
				reachable++
			}
		}
		if scan(k+1-delta) >= 0 {
			reachable++
		}
		peak = max(peak, reachable)
		if slots, want := v.mask+1, 1<<bits.Len(uint(peak-1)); slots != want {
			t.Fatalf("%s steps, keep %d, after %d pushes: ring of %d slots, want %d for %d versions reachable at most",
				name, keep, len(stamps)-1, slots, want, peak)
		}
	}
}
