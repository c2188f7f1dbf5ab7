package pipeline

// lowering finds the round in which Lower's round-robin takes each cell
// of a table, without stepping through the rounds.
//
// A visit is numbered by its key k·R + r (round k, rank r of R ranks): the
// visits of a round go by rank, and rounds follow one another. A rank takes
// one cell per visit, so its cell i is taken in the first round after that
// of cell i-1 whose visit comes after the visit that gave it its input. An
// F waits for the activation of its microbatch's previous stage, an I or B
// for the input gradient of the next stage: the message (as in
// messageKey) that the producing compute makes, on this rank or, sent
// there as a RECV, on another. Every round thus follows from rounds
// already found, whatever order the ranks are gone through in: a rank goes
// along its row until a message it needs has not been made, and waits
// until the producing rank makes it. The round-robin gets stuck exactly
// where this leaves cells untaken.
type lowering struct {
	t     *Table
	flow  messageFlow
	made  []int64   // per message, key+1 of the visit that made it, 0 before
	pos   []int     // per rank, the next cell to take
	last  []int     // per rank, the round of the cell taken last, -1 before
	round [][]int32 // round[r][i]: the round in which rank r takes cell i
	// cross[r][i] lists, per single action of cell i of rank r, the
	// message it sends to another rank and that rank (msg -1: none).
	cross  [][][2]sent
	waitOn []int // per rank, the message it waits for, or -1
	work   []int // ranks that may move on
	size   []int // per rank, the cells of its lowered row
	sends  int   // SENDs (and RECVs) the lowering adds
}

// sent is a message a cell sends to another rank, and the rank.
type sent struct{ msg, peer int32 }

func newLowering(t *Table) *lowering {
	ranks := t.Ranks()
	lw := &lowering{t: t, flow: newMessageFlow(t), pos: make([]int, ranks), last: make([]int, ranks),
		round: make([][]int32, ranks), cross: make([][][2]sent, ranks), waitOn: make([]int, ranks),
		work: make([]int, 0, ranks), size: make([]int, ranks)}
	lw.made = make([]int64, lw.flow.messages())
	cells := 0
	for _, row := range t.Rows {
		cells += len(row)
	}
	buf, cross := make([]int32, cells), make([][2]sent, cells)
	for r, row := range t.Rows {
		lw.round[r], buf = buf[:len(row):len(row)], buf[len(row):]
		lw.cross[r], cross = cross[:len(row):len(row)], cross[len(row):]
		lw.last[r], lw.waitOn[r] = -1, -1
		lw.work = append(lw.work, ranks-1-r)
	}
	return lw
}

// roundAfter returns the first round whose visit of rank r, of ranks,
// comes after the visit numbered key; Lockstep's looks are numbered the
// same way.
func roundAfter(key int64, r, ranks int) int {
	if key < int64(r) {
		return 0
	}
	return int((key-int64(r))/int64(ranks)) + 1
}

// run takes every cell it can; cells left untaken are an error naming the
// stuck ranks, as the round-robin reports them.
func (lw *lowering) run() error {
	for len(lw.work) > 0 {
		r := lw.work[len(lw.work)-1]
		lw.work = lw.work[:len(lw.work)-1]
		lw.advance(r)
	}
	pending := make([][]Action, len(lw.pos))
	stuck := false
	for r, row := range lw.t.Rows {
		pending[r] = row[lw.pos[r]:]
		stuck = stuck || len(pending[r]) > 0
	}
	if stuck {
		return lowerStuck(lw.t, pending)
	}
	return nil
}

// advance takes rank r's cells until one has to wait.
func (lw *lowering) advance(r int) {
	row := lw.t.Rows[r]
	for lw.pos[r] < len(row) {
		a := &row[lw.pos[r]]
		k := lw.last[r] + 1
		if a.Kind == OverlapFB {
			f, b := F(a.Stage, a.Microbatch), B(a.BackStage, a.BackMicrobatch)
			if !lw.ready(r, &f, &k) || !lw.ready(r, &b, &k) {
				return
			}
			lw.take(r, k, true)
			lw.made1(r, k, &f, 0)
			lw.made1(r, k, &b, 1)
			continue
		}
		if !lw.ready(r, a, &k) {
			return
		}
		lw.take(r, k, !a.IsBubble())
		lw.made1(r, k, a, 0)
	}
}

// ready reports whether single action a, next on rank r, has its input,
// and raises k to the first round it may be taken in; when it does not,
// the rank waits for the message.
func (lw *lowering) ready(r int, a *Action, k *int) bool {
	msg := lw.flow.input(a)
	if msg < 0 {
		return true
	}
	if lw.made[msg] == 0 {
		lw.waitOn[r] = msg
		return false
	}
	*k = max(*k, roundAfter(lw.made[msg]-1, r, len(lw.pos)))
	return true
}

// take records that rank r takes its next cell, an action when emit is
// set (a bubble otherwise), in round k.
func (lw *lowering) take(r, k int, emit bool) {
	lw.round[r][lw.pos[r]] = int32(k)
	lw.pos[r]++
	lw.last[r] = k
	if emit {
		lw.size[r]++
	}
}

// made1 records the message single action a (single action j of its
// cell), taken by rank r in round k, makes, and the SEND and RECV that
// carry it to another rank, which wake that rank if it waits for it.
func (lw *lowering) made1(r, k int, a *Action, j int) {
	sends := &lw.cross[r][lw.pos[r]-1]
	if j == 0 {
		*sends = [2]sent{{-1, -1}, {-1, -1}}
	}
	cell := &sends[j]
	msg, peer := lw.flow.output(a)
	if msg < 0 {
		return
	}
	if lw.made[msg] == 0 {
		lw.made[msg] = int64(k)*int64(len(lw.pos)) + int64(r) + 1
	}
	if peer < 0 {
		return
	}
	*cell = sent{int32(msg), int32(peer)}
	lw.size[r]++
	lw.size[peer]++
	lw.sends++
	if lw.waitOn[peer] == msg {
		lw.waitOn[peer] = -1
		lw.work = append(lw.work, peer)
	}
}

// cellRef names cell index of rank's row.
type cellRef struct{ rank, index int32 }

// visitOrder lists the non-bubble cells in the order the rounds take them:
// by round, then rank. A rank takes one cell per round, so placing each
// rank's cells, rank after rank, by round (a counting sort) is that order.
func (lw *lowering) visitOrder() []cellRef {
	rounds := 0
	for r := range lw.last {
		rounds = max(rounds, lw.last[r]+1)
	}
	start := make([]int, rounds+1)
	for r, row := range lw.t.Rows {
		for i, a := range row {
			if !a.IsBubble() {
				start[lw.round[r][i]+1]++
			}
		}
	}
	for k := range rounds {
		start[k+1] += start[k]
	}
	order := make([]cellRef, start[rounds])
	for r, row := range lw.t.Rows {
		for i, a := range row {
			if !a.IsBubble() {
				k := lw.round[r][i]
				order[start[k]] = cellRef{int32(r), int32(i)}
				start[k]++
			}
		}
	}
	return order
}
