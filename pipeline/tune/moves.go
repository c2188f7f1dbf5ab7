package tune

// move takes one layer from stage from and gives it to stage to; the
// stage boundaries between them each shift by one layer.
type move struct{ from, to int }

// apply returns the partition after m, or nil when m would empty a stage.
func (m move) apply(part []int) []int {
	if part[m.from] < 2 {
		return nil
	}
	out := append([]int(nil), part...)
	out[m.from]--
	out[m.to]++
	return out
}

// adjacentMoves are the moves between neighbouring stages: one boundary
// shifts by one layer.
func adjacentMoves(stages int) []move {
	var out []move
	for s := 0; s+1 < stages; s++ {
		out = append(out, move{s, s + 1}, move{s + 1, s})
	}
	return out
}

// rankMoves are the moves between stages further apart that take a layer
// off a stage of the busiest rank or give one to a stage of the idlest,
// ranks loaded by the compute time of their stages' layers. They matter
// where stages far apart share a rank (the V placement puts stages 0 and
// 2P-1 on rank 0); limiting them to the two extreme ranks keeps a round
// at about 4·V·S simulations instead of S².
func rankMoves(part, placement []int, ranks int, seconds []float64) []move {
	load := rankLoads(part, placement, ranks, seconds)
	busiest, idlest := 0, 0
	for r, l := range load {
		if l > load[busiest] {
			busiest = r
		}
		if l < load[idlest] {
			idlest = r
		}
	}
	var out []move
	far := func(a, b int) bool { return a-b > 1 || b-a > 1 }
	for s, r := range placement {
		if r != busiest {
			continue
		}
		for to := range placement {
			if far(s, to) {
				out = append(out, move{s, to})
			}
		}
	}
	for s, r := range placement {
		if r != idlest {
			continue
		}
		for from := range placement {
			if far(from, s) && placement[from] != busiest {
				out = append(out, move{from, s})
			}
		}
	}
	return out
}
