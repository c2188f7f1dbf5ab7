package optim

import (
	"math/rand/v2"
	"testing"
)

// versions.at finds what a scan from the newest version back finds (the
// reference: the first version stamped at or before i), for rings of
// every fill and wrap, and reads before the oldest kept version are
// refused alike. Gaps of 1 to 3 between stamps spread them evenly; gaps
// mostly 1 with rare jumps of 60 make the guess between the oldest and
// newest stamps land far off, so the gallop and the binary search do the
// work. Each ring is checked plain and with bucket indexes of several
// bucket lengths and windows: reads inside the window go through a bucket,
// older ones through the binary search.
func TestVersionsAtIsNewestAtOrBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	gaps := []struct {
		name string
		gap  func() int
	}{
		{"even", func() int { return 1 + rng.IntN(3) }},
		{"bursts", func() int { return []int{1, 1, 1, 1, 1, 1, 1, 60}[rng.IntN(8)] }},
	}
	for _, g := range gaps {
		for _, keep := range []int{1, 2, 3, 7, 64} {
			checkVersionsAt(t, g.name, keep, g.gap, nil)
			for _, ix := range [][2]int{{1, 1}, {4, 2}, {3 * keep, 3}, {20, 8}} {
				checkVersionsAt(t, g.name, keep, g.gap, func(v *versions) { v.index(ix[0], ix[1]) })
			}
		}
	}
}

func checkVersionsAt(t *testing.T, name string, keep int, gap func() int, index func(*versions)) {
	t.Helper()
	v := newVersions(keep, []float64{0})
	if index != nil {
		index(v)
	}
	stamps := []int{0} // every version pushed, in order
	stamp := 0
	for push := 0; push < 5*keep; push++ {
		stamp += gap()
		v.push(stamp, []float64{float64(stamp)})
		stamps = append(stamps, stamp)
		kept := stamps[max(0, len(stamps)-keep):]
		for i := kept[0] - 2; i <= stamp+1; i++ {
			want, wantOK := 0.0, false
			for n := len(kept) - 1; n >= 0; n-- {
				if kept[n] <= i {
					want, wantOK = float64(kept[n]), true
					break
				}
			}
			got, ok := v.at(i)
			if ok != wantOK || ok && got[0] != want {
				t.Fatalf("%s gaps, keep %d, index %v, after %d pushes: at(%d) = %v, %v; want %g, %v", name, keep, v.starts != nil, push+1, i, got, ok, want, wantOK)
			}
		}
	}
}
