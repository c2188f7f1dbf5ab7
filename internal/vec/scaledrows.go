package vec

// AddScaledRows adds r[i] times row i to g for every row, in row order:
// g[c] = ((g[c] + r[0]·rows[c]) + r[1]·rows[w+c]) + ..., w = len(g), rows
// holding len(r) rows of w values one after another, each product rounded
// before it is added. It is the transposed matrix-vector product gᵀ += rᵀA
// of a linear model's backward, with the operations and order of the plain
// loop (and of gonum's transposed Gemv, which runs the same loop with SSE2
// axpys), so the same bits.
//
// On amd64 with AVX, rows whose width is a multiple of 4 run four or
// sixteen columns of g at a time in registers (scaledrows_amd64.s).
func AddScaledRows(g, rows, r []float64) {
	w := len(g)
	rows = rows[:len(r)*w]
	if len(r) == 0 || w == 0 {
		return
	}
	if scaledRowsVector(g, rows, r) {
		return
	}
	for i, ri := range r {
		row := rows[i*w : (i+1)*w : (i+1)*w]
		for c, v := range row {
			g[c] += float64(ri * v)
		}
	}
}
