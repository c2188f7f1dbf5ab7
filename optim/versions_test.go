package optim

import (
	"math/rand/v2"
	"testing"
)

// The binary search of versions.at finds what a scan from the newest
// version back finds (the reference: the first version stamped at or
// before i), for rings of every fill and wrap, and reads before the
// oldest kept version are refused alike.
func TestVersionsAtIsNewestAtOrBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, keep := range []int{1, 2, 3, 7, 64} {
		v := newVersions(keep, []float64{0})
		stamps := []int{0} // every version pushed, in order
		stamp := 0
		for push := 0; push < 5*keep; push++ {
			stamp += 1 + rng.IntN(3)
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
					t.Fatalf("keep %d after %d pushes: at(%d) = %v, %v; want %g, %v", keep, push+1, i, got, ok, want, wantOK)
				}
			}
		}
	}
}
