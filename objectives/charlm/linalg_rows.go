package charlm

import "sync"

// parallelFMAs is the smallest product gemmNN spreads over goroutines:
// below it, starting them costs more than it saves.
const parallelFMAs = 1 << 15

// parallelRows sets c = a·b + bias as gemmNN does, the rows of c cut into
// len(rows) runs, each formed by gemmNNRows on a goroutine of its own
// with its own scratch. Every run but the last is a multiple of four
// rows long, so each row is formed by the kernel (vector panel, scalar
// tile or dot product) and in the order the one-goroutine call forms it:
// each c[i,j] depends only on row i of a and column j of b, and the same
// bits come out whatever the count (TestParallelRowsSameBits).
func parallelRows(c, a, b, bias []float64, n, k, m int, rows []linearScratch) {
	per := ((n+len(rows)-1)/len(rows) + 3) &^ 3
	run := func(w int) {
		lo, hi := min(w*per, n), min((w+1)*per, n)
		if lo < hi {
			gemmNNRows(c[lo*m:hi*m], a[lo*k:hi*k], b, bias, hi-lo, k, m, &rows[w])
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < len(rows); w++ {
		wg.Go(func() { run(w) })
	}
	run(0)
	wg.Wait()
}
