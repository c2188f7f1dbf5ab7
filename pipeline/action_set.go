package pipeline

// actionTimes records when each single action of the kinds the readiness
// checks of Lower and Lockstep look up (F, B, I, W and the four transfers,
// Kind.slot) was first emitted or run, as a time key whose order is the
// order of the visits (see lowerKey, lockstepKey): one int64 per kind,
// stage and microbatch, in a flat array. A stage lives on one rank, so
// "rank r holds a" is "a has a time and a's stage is on r", and one array
// serves every rank. Other kinds are not recorded: nothing waits for them.
type actionTimes struct {
	stages int
	mbs    microbatchIndex
	at     []int64 // key+1, 0 while the action has not happened
}

func newActionTimes(t *Table) *actionTimes {
	x := &actionTimes{stages: t.Stages(), mbs: indexMicrobatches(t)}
	x.at = make([]int64, slottedKinds*x.stages*x.mbs.n)
	return x
}

// slot returns a's place in the array, or -1 when a is not recorded.
func (x *actionTimes) slot(a Action) int {
	kind := a.Kind.slot()
	mb, ok := x.mbs.of(a.Microbatch)
	if kind < 0 || !ok || a.Stage < 0 || a.Stage >= x.stages {
		return -1
	}
	return (kind*x.stages+a.Stage)*x.mbs.n + mb
}

// set records that a happened at key, unless it happened before.
func (x *actionTimes) set(a Action, key int64) {
	if i := x.slot(a); i >= 0 && x.at[i] == 0 {
		x.at[i] = key + 1
	}
}

// time returns the key a happened at, or false when it has not.
func (x *actionTimes) time(a Action) (int64, bool) {
	i := x.slot(a)
	if i < 0 || x.at[i] == 0 {
		return 0, false
	}
	return x.at[i] - 1, true
}

// earliestOn returns the earliest key at which one of the actions whose
// stage is on rank r happened, or false when none has.
func (x *actionTimes) earliestOn(t *Table, r int, actions []Action) (int64, bool) {
	best, found := int64(0), false
	for _, a := range actions {
		if key, ok := x.time(a); ok && t.Placement[a.Stage] == r && (!found || key < best) {
			best, found = key, true
		}
	}
	return best, found
}

// microbatchIndex numbers the microbatches a table names densely from 0.
// They are almost always 0..M-1, and then the number is m minus the
// smallest; a table whose indices spread far wider than it has actions
// gets a lookup table instead, so that an actionTimes stays the size of the
// table whatever the indices.
type microbatchIndex struct {
	lo, n  int
	sparse map[int]int // nil when the index is m - lo
}

func indexMicrobatches(t *Table) microbatchIndex {
	lo, hi, count := 0, 0, 0
	note := func(m int) {
		if count == 0 {
			lo, hi = m, m
		}
		lo, hi = min(lo, m), max(hi, m)
		count++
	}
	for _, row := range t.Rows {
		for _, a := range row {
			switch {
			case a.Kind == OverlapFB:
				note(a.Microbatch)
				note(a.BackMicrobatch)
			case a.Kind.HasMicrobatch():
				note(a.Microbatch)
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
