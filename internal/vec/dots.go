package vec

// StridedDots sets out[u] = Dot(x, rows[u·stride:]) for every u: the dot
// products of x with len(out) rows that start stride values apart, as the
// keys or values of one attention head lie in a sequence's projected
// tokens. Each is formed as Dot forms it, bit for bit; what is saved is a
// call per row. Rows of 4 (a head of 4 channels) run without a loop per
// row, skipping the additions to Dot's zero partial sums as AddDots does:
// they change nothing but the sign of a zero, which the final + 0 restores.
func StridedDots(out, x, rows []float64, stride int) {
	w := len(x)
	if len(out) == 0 {
		return
	}
	rows = rows[:(len(out)-1)*stride+w]
	if w == 4 {
		x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
		for u := range out {
			r := rows[u*stride : u*stride+4 : u*stride+4]
			out[u] = (float64(r[0]*x0) + float64(r[1]*x1)) + (float64(r[2]*x2) + float64(r[3]*x3)) + 0
		}
		return
	}
	for u := range out {
		out[u] = Dot(x, rows[u*stride:u*stride+w])
	}
}
