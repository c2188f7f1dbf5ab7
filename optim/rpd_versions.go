package optim

import "math/bits"

// versions keeps the versions of one block a read can still reach, each
// stamped with the number of updates after which it became current: a
// read reaches back at most delta updates behind the newest stamp, so the
// versions kept are those stamped after newest - delta and the one current
// at newest - delta. Version a (the initial block is version 0) sits at
// slot a & mask of a ring of a power of two slots, which doubles, relaying
// the kept versions in order, only when the slot the next version would
// take still holds a kept one. A block updated every S updates thus holds
// about delta/S + 1 versions, not delta + 1.
//
// A lookup by update count can go through a bucket index: bucket q holds
// the newest version stamped at or before q·2^shift, for the buckets of
// the last window updates. With buckets about as long as the spacing of
// the block's updates (S updates for one of S blocks updated in turn or at
// random), a lookup reads one bucket and steps past a version or two.
type versions struct {
	width  int       // the block's length
	delta  int       // reads reach back at most delta updates behind the newest stamp
	mask   int       // slot of version a: a & mask; the ring has mask+1 slots
	data   []float64 // slot n at data[n*width:(n+1)*width]
	stamps []int     // by slot
	count  int       // versions pushed, the initial one included
	first  int       // the oldest kept version: current at newest stamp - delta, or 0

	shift  uint  // bucket q covers stamps [q<<shift, (q+1)<<shift)
	starts []int // by q & (len-1): the newest version stamped at or before q<<shift; nil without an index
	filled int   // the newest bucket with a start; buckets filled-len+1 .. filled are valid
}

// newVersions starts the history of a block whose reads reach back
// keep - 1 = δ updates (RPD's delay bound) at most, from initial.
func newVersions(keep int, initial []float64) *versions {
	v := &versions{width: len(initial), delta: max(keep, 1) - 1, filled: -1}
	v.data = append(v.data, initial...)
	v.stamps = append(v.stamps, 0)
	v.count = 1
	return v
}

// index makes lookups of the last window updates go through buckets of
// about spacing updates (a power of two, at most spacing).
func (v *versions) index(window, spacing int) {
	v.shift = uint(bits.Len(uint(max(spacing, 1))) - 1)
	v.starts = make([]int, 1<<bits.Len(uint(window>>v.shift+1)))
}

// push records xs as the version current after update count stamp, which
// must exceed every earlier stamp.
func (v *versions) push(stamp int, xs []float64) {
	a := v.count
	if n := len(v.starts); n > 0 {
		// Buckets that begin before stamp start at version a-1.
		end := (stamp + 1<<v.shift - 1) >> v.shift
		for q := max(v.filled+1, end-n); q < end; q++ {
			v.starts[q&(n-1)] = a - 1
		}
		v.filled = max(v.filled, end-1)
	}
	// Versions superseded by one stamped at or before stamp - delta are no
	// longer reachable; with delta 0 the new version alone is.
	reach := stamp - v.delta
	for v.first < a-1 && v.stamp(v.first+1) <= reach {
		v.first++
	}
	if v.delta == 0 {
		v.first = a
	}
	if a-(v.mask+1) >= v.first {
		v.grow()
	}
	copy(v.slot(a), xs)
	v.stamps[a&v.mask] = stamp
	v.count++
}

// grow doubles the ring, relaying versions first .. count-1 to their slots
// in it.
func (v *versions) grow() {
	mask := 2*v.mask + 1
	data := make([]float64, (mask+1)*v.width)
	stamps := make([]int, mask+1)
	for a := v.first; a < v.count; a++ {
		n := a & mask
		copy(data[n*v.width:(n+1)*v.width], v.slot(a))
		stamps[n] = v.stamp(a)
	}
	v.mask, v.data, v.stamps = mask, data, stamps
}

// slot returns version a.
func (v *versions) slot(a int) []float64 {
	n := a & v.mask
	return v.data[n*v.width : (n+1)*v.width]
}

// stamp returns version a's stamp.
func (v *versions) stamp(a int) int { return v.stamps[a&v.mask] }

// at returns the block as it was after i updates: the newest version
// stamped at or before i. It refuses reads before the start (i < 0) and
// more than delta updates behind the newest stamp. Its bucket, when the
// index holds it, names a version at or before the answer, and the stamps
// after it are stepped through; otherwise a binary search over the kept
// stamps finds it.
func (v *versions) at(i int) ([]float64, bool) {
	newest := v.count - 1
	if i < 0 || i < v.stamp(newest)-v.delta {
		return nil, false
	}
	if i >= v.stamp(newest) {
		return v.slot(newest), true
	}
	oldest := v.first // stamped at or before i
	a := -1
	if n := len(v.starts); n > 0 {
		if q := i >> v.shift; q <= v.filled && q > v.filled-n {
			a = v.starts[q&(n-1)]
		}
	}
	if a >= oldest {
		for v.stamp(a+1) <= i { // a+1 ≤ newest, stamped after i
			a++
		}
		return v.slot(a), true
	}
	lo, hi := oldest, newest // lo stamped at or before i, hi after it
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if v.stamp(mid) <= i {
			lo = mid
		} else {
			hi = mid
		}
	}
	return v.slot(lo), true
}
