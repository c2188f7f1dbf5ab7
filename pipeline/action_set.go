package pipeline

// actionSet is the set of single actions Lower has emitted, or Lockstep
// has run, of the kinds their readiness checks look up: F, B, I, W and the
// four transfers (Kind.slot), one bit per kind, stage and microbatch. A
// stage lives on one rank, so "rank r holds a" is "a is in the set and a's
// stage is on r", and one set serves every rank. Other kinds are not
// recorded: nothing waits for them.
type actionSet struct {
	stages int
	mbs    microbatchIndex
	bits   []uint64
}

func newActionSet(t *Table) *actionSet {
	x := &actionSet{stages: t.Stages(), mbs: indexMicrobatches(t)}
	x.bits = make([]uint64, (slottedKinds*x.stages*x.mbs.n+63)/64)
	return x
}

// bit returns a's position in the set, or false when the set does not
// record a.
func (x *actionSet) bit(a Action) (int, bool) {
	slot := a.Kind.slot()
	mb, ok := x.mbs.of(a.Microbatch)
	if slot < 0 || !ok || a.Stage < 0 || a.Stage >= x.stages {
		return 0, false
	}
	return (slot*x.stages+a.Stage)*x.mbs.n + mb, true
}

func (x *actionSet) add(a Action) {
	if i, ok := x.bit(a); ok {
		x.bits[i/64] |= 1 << (i % 64)
	}
}

func (x *actionSet) has(a Action) bool {
	i, ok := x.bit(a)
	return ok && x.bits[i/64]&(1<<(i%64)) != 0
}

// anyOn reports whether rank r holds one of the actions.
func (x *actionSet) anyOn(t *Table, r int, actions []Action) bool {
	for _, a := range actions {
		if x.has(a) && t.Placement[a.Stage] == r {
			return true
		}
	}
	return false
}

// microbatchIndex numbers the microbatches a table names densely from 0.
// They are almost always 0..M-1, and then the number is m minus the
// smallest; a table whose indices spread far wider than it has actions
// gets a lookup table instead, so that an actionSet stays the size of the
// table whatever the indices.
type microbatchIndex struct {
	lo, n  int
	sparse map[int]int // nil when the index is m - lo
}

func indexMicrobatches(t *Table) microbatchIndex {
	lo, hi, count := 0, 0, 0
	for _, row := range t.Rows {
		for _, a := range row {
			for _, sub := range subActions(a) {
				if !sub.Kind.HasMicrobatch() {
					continue
				}
				if count == 0 {
					lo, hi = sub.Microbatch, sub.Microbatch
				}
				lo, hi = min(lo, sub.Microbatch), max(hi, sub.Microbatch)
				count++
			}
		}
	}
	if count == 0 {
		return microbatchIndex{}
	}
	// hi - lo computed in uint64 cannot overflow.
	if span := uint64(hi) - uint64(lo); span < uint64(4*count+64) {
		return microbatchIndex{lo: lo, n: int(span) + 1}
	}
	x := microbatchIndex{sparse: map[int]int{}}
	for _, row := range t.Rows {
		for _, a := range row {
			for _, sub := range subActions(a) {
				if _, seen := x.sparse[sub.Microbatch]; !seen && sub.Kind.HasMicrobatch() {
					x.sparse[sub.Microbatch] = x.n
					x.n++
				}
			}
		}
	}
	return x
}

// of returns m's number, or false for a microbatch the table does not name.
func (x microbatchIndex) of(m int) (int, bool) {
	if x.sparse != nil {
		i, ok := x.sparse[m]
		return i, ok
	}
	i := m - x.lo
	return i, i >= 0 && i < x.n
}
