package pipeline

// LowerLockstep returns Lockstep(Lower(t)), the step count of PyTorch's
// unit-time check of t lowered, and the same errors, without building the
// lowered table.
//
// In a table Lower has built, every compute finds its inputs earlier in its
// own row and every SEND follows the compute it sends, so only a RECV waits
// for another rank: for the first SEND of its message. The lowered rows are
// kept as that and nothing more, one number per cell (own action, SEND or
// RECV of message k), and stepped as runLockstep steps a table. Should the
// stepping not finish, the lowered table is built and Lockstep reports
// why.
func LowerLockstep(t *Table) (int, error) {
	lw, err := lowerRounds(t)
	if err != nil {
		return 0, err
	}
	if lw.sends > 0 || distinctRanks(t.Placement) <= 1 {
		if steps, ok := lw.lockstep(); ok {
			return steps, nil
		}
	}
	low, err := Lower(t)
	if err != nil {
		return 0, err
	}
	return Lockstep(low)
}

// A lowered cell as LowerLockstep keeps it: ownCell for the table's own
// action, 2k for the SEND of message k and 2k+1 for its RECV.
const ownCell = -1

// lockstep steps the lowered rows of a finished lowering and returns the
// step count, or false when some rank cannot finish (or the message
// numbers do not fit the cell encoding).
func (lw *lowering) lockstep() (int, bool) {
	messages := lw.flow.messages()
	if messages >= 1<<30 {
		return 0, false
	}
	rows := lw.cells()
	ranks := len(rows)
	sent := make([]int64, messages)   // key+1 of the look its first SEND ran at
	waiter := make([]int32, messages) // rank+1 waiting for its SEND
	pos, next := make([]int, ranks), make([]int, ranks)
	work := make([]int, 0, ranks)
	for r := range ranks {
		work = append(work, ranks-1-r)
	}
	last := -1
	for len(work) > 0 {
		r := work[len(work)-1]
		work = work[:len(work)-1]
		row, p, look := rows[r], pos[r], next[r]
		for ; p < len(row); p++ {
			c := row[p]
			if c != ownCell && c&1 == 1 {
				msg := c >> 1
				if sent[msg] == 0 {
					waiter[msg] = int32(r + 1)
					break
				}
				look = max(look, roundAfter(sent[msg]-1, r, ranks))
			}
			if c != ownCell && c&1 == 0 {
				msg := c >> 1
				if sent[msg] == 0 {
					sent[msg] = int64(look)*int64(ranks) + int64(r) + 1
				}
				if w := waiter[msg]; w != 0 {
					waiter[msg] = 0
					work = append(work, int(w-1))
				}
			}
			// The next cell's earliest look: the next step's first pass.
			look = 2 * (look/2 + 1)
		}
		pos[r], next[r] = p, look
		if p > 0 {
			last = max(last, next[r]/2-1)
		}
	}
	for r := range rows {
		if pos[r] < len(rows[r]) {
			return 0, false
		}
	}
	return last + 1, true
}

// cells lists each rank's lowered row in LowerLockstep's numbers, in the
// order Lower writes it.
func (lw *lowering) cells() [][]int32 {
	total := 0
	for _, n := range lw.size {
		total += n
	}
	buf := make([]int32, total)
	rows := make([][]int32, len(lw.size))
	for r, n := range lw.size {
		rows[r], buf = buf[:0:n], buf[n:]
	}
	for _, c := range lw.visitOrder() {
		r := c.rank
		rows[r] = append(rows[r], ownCell)
		for _, x := range lw.cross[r][c.index] {
			if x.peer >= 0 {
				rows[r] = append(rows[r], 2*x.msg)
				rows[x.peer] = append(rows[x.peer], 2*x.msg+1)
			}
		}
	}
	return rows
}
