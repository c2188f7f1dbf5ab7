package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// timeIndex answers as a Go map does through any mix of look-ups, inserts
// and removals: keys from a small pool (so that most operations hit keys
// present, probes collide and removals shift runs back) and from the
// float64 bits of times as the queue makes them, growing to thousands of
// keys and emptied key by key.
func TestTimeIndexIsMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, pool := range []int{3, 40, 5000} {
		var x timeIndex
		want := map[uint64]int32{}
		keys := make([]uint64, pool)
		for i := range keys {
			keys[i] = math.Float64bits(float64(rng.IntN(4*pool)) * 0.25)
		}
		for step := range 40000 {
			key := keys[rng.IntN(pool)]
			slot, got := x.find(key)
			if got != want[key] {
				t.Fatalf("pool %d step %d: key %#x has list %d, want %d", pool, step, key, got, want[key])
			}
			grow := step < 20000
			switch {
			case got == 0 && (grow || rng.IntN(4) == 0):
				list := int32(step + 1)
				x.insert(slot, key, list)
				want[key] = list
			case got != 0 && (!grow || rng.IntN(3) == 0):
				x.remove(key)
				delete(want, key)
			}
			if x.used != len(want) {
				t.Fatalf("pool %d step %d: %d keys, want %d", pool, step, x.used, len(want))
			}
		}
		// Empty it key by key, in the pool's order: every other key stays
		// found as runs shift back.
		for _, key := range keys {
			if want[key] == 0 {
				continue
			}
			x.remove(key)
			delete(want, key)
			for k, list := range want {
				if _, got := x.find(k); got != list {
					t.Fatalf("pool %d: after removing %#x, key %#x has list %d, want %d", pool, key, k, got, list)
				}
			}
		}
		if x.used != 0 {
			t.Errorf("pool %d: %d keys left", pool, x.used)
		}
	}
}
