package sim

// timeIndex maps the key of a pending time (timeKey) to its list in the
// event queue: an open-addressing hash table with linear probing, sized to
// twice the pending times at least, so that a look-up is a multiply, a
// shift and, nearly always, one probe. Removal shifts the entries after the
// removed one back (no tombstones), so the table never fills up with dead
// entries however many times come and go.
type timeIndex struct {
	slots []indexSlot
	shift uint // 64 - log2(len(slots))
	used  int
}

// indexSlot holds a key and its list plus one; list 0 marks a free slot.
type indexSlot struct {
	key  uint64
	list int32
}

// home returns the slot a key's probe starts at.
func (x *timeIndex) home(key uint64) int { return int((key * 0x9e3779b97f4a7c15) >> x.shift) }

// find returns the slot that holds key and its list, or the free slot
// where key would go and 0.
func (x *timeIndex) find(key uint64) (slot int, list int32) {
	if x.slots == nil {
		x.resize(16)
	}
	mask := len(x.slots) - 1
	for i := x.home(key); ; i = (i + 1) & mask {
		s := x.slots[i]
		if s.list == 0 || s.key == key {
			return i, s.list
		}
	}
}

// insert puts key with list in the free slot find returned for it.
func (x *timeIndex) insert(slot int, key uint64, list int32) {
	x.slots[slot] = indexSlot{key, list}
	if x.used++; 2*x.used > len(x.slots) {
		x.resize(2 * len(x.slots))
	}
}

// remove deletes key, which the index holds.
func (x *timeIndex) remove(key uint64) {
	mask := len(x.slots) - 1
	i, _ := x.find(key)
	// Move back every entry of the run after i whose probe started at or
	// before i, so that no probe meets a hole before its key.
	for j := (i + 1) & mask; x.slots[j].list != 0; j = (j + 1) & mask {
		if h := x.home(x.slots[j].key); (j-h)&mask >= (j-i)&mask {
			x.slots[i] = x.slots[j]
			i = j
		}
	}
	x.slots[i] = indexSlot{}
	x.used--
}

// resize rehashes the index into n slots, a power of two.
func (x *timeIndex) resize(n int) {
	old := x.slots
	x.slots = make([]indexSlot, n)
	x.shift = 64
	for m := n; m > 1; m >>= 1 {
		x.shift--
	}
	mask := n - 1
	for _, s := range old {
		if s.list == 0 {
			continue
		}
		i := x.home(s.key)
		for x.slots[i].list != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = s
	}
}
