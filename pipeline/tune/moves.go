package tune

// move takes one layer from model part from and gives it to part to; the
// boundaries between them each shift by one layer.
type move struct{ from, to int }

// apply returns the partition after m, or nil when m would empty a part.
func (m move) apply(part []int) []int {
	if part[m.from] < 2 {
		return nil
	}
	out := append([]int(nil), part...)
	out[m.from]--
	out[m.to]++
	return out
}

// adjacentMoves are the moves between neighbouring model parts: one
// boundary shifts by one layer.
func adjacentMoves(parts int) []move {
	var out []move
	for s := 0; s+1 < parts; s++ {
		out = append(out, move{s, s + 1}, move{s + 1, s})
	}
	return out
}

// rankMoves are the moves between model parts further apart that take a
// layer off a part the busiest rank runs or give one to a part the idlest
// runs (and the busiest does not), ranks loaded by the compute time of
// their stages' layers (rankLoads). They matter where parts far apart
// share a rank (the V placement puts stages 0 and 2P-1 on rank 0,
// Chimera parts r and P-1-r on rank r); limiting them to the two extreme
// ranks keeps a round at about 4·V·S simulations instead of S².
func rankMoves(part []int, l layout, seconds []float64) []move {
	load := rankLoads(part, l, seconds)
	busiest, idlest := 0, 0
	for r, w := range load {
		if w > load[busiest] {
			busiest = r
		}
		if w < load[idlest] {
			idlest = r
		}
	}
	var out []move
	far := func(a, b int) bool { return a-b > 1 || b-a > 1 }
	for s, r := range l.placement {
		if r != busiest {
			continue
		}
		from := l.stagePart[s]
		for to := range l.parts {
			if far(from, to) {
				out = append(out, move{from, to})
			}
		}
	}
	for s, r := range l.placement {
		if r != idlest {
			continue
		}
		to := l.stagePart[s]
		for from := range l.parts {
			if far(from, to) && !l.holds(busiest, from) {
				out = append(out, move{from, to})
			}
		}
	}
	return out
}
