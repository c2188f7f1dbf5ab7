package vec

// Dot returns Σ a[i]·b[i] for len(b) ≥ len(a), summing four interleaved
// partial sums so that the multiplications pipeline; the order of the sums
// is fixed, and each product is rounded before it is added (the
// conversions forbid the fused multiply-add Go may use otherwise, as it
// does with GOAMD64=v3), so the result is the same on every run and build.
func Dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += float64(a[i] * b[i])
		s1 += float64(a[i+1] * b[i+1])
		s2 += float64(a[i+2] * b[i+2])
		s3 += float64(a[i+3] * b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += float64(a[i] * b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// AddDots adds Dot(rows[i·w:(i+1)·w], x) to out[i] for every i, w being
// len(x) and rows holding len(out) rows of w values one after another: a
// matrix-vector product accumulated into out. Each row's sum is formed as
// Dot forms it (four partial sums from zero, a tail into the first, then
// (s0 + s1) + (s2 + s3)), so the result is bit for bit that of calling Dot
// row by row. What is saved is a call, its slicing and its loop control per
// row, which for narrow rows cost more than the arithmetic: rows of 4 and
// of 8 (the blocks of d = 512 on 128 and 64 stages) keep x in registers
// across the rows and run without a loop per row.
//
// Those two skip the additions to Dot's zero partial sums, which change
// nothing but the sign of a zero: a round-to-nearest sum of terms without
// -0 is never -0, so Dot's sum equals the sum of the bare products plus 0,
// one addition instead of four. The products are rounded as Dot rounds
// them (the conversions forbid a fused multiply-add where Dot has none).
func AddDots(out, rows, x []float64) {
	w := len(x)
	rows = rows[:len(out)*w]
	switch w {
	case 4:
		x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
		for i := range out {
			r := rows[i*4 : i*4+4 : i*4+4]
			out[i] += (float64(r[0]*x0) + float64(r[1]*x1)) + (float64(r[2]*x2) + float64(r[3]*x3)) + 0
		}
	case 8:
		x0, x1, x2, x3, x4, x5, x6, x7 := x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]
		for i := range out {
			r := rows[i*8 : i*8+8 : i*8+8]
			s0, s1, s2, s3 := float64(r[0]*x0), float64(r[1]*x1), float64(r[2]*x2), float64(r[3]*x3)
			s0 += float64(r[4] * x4)
			s1 += float64(r[5] * x5)
			s2 += float64(r[6] * x6)
			s3 += float64(r[7] * x7)
			out[i] += (s0 + s1) + (s2 + s3) + 0
		}
	default:
		for i := range out {
			r := rows[i*w : (i+1)*w : (i+1)*w]
			var s0, s1, s2, s3 float64
			j := 0
			for ; j+4 <= len(r); j += 4 {
				s0 += float64(r[j] * x[j])
				s1 += float64(r[j+1] * x[j+1])
				s2 += float64(r[j+2] * x[j+2])
				s3 += float64(r[j+3] * x[j+3])
			}
			for ; j < len(r); j++ {
				s0 += float64(r[j] * x[j])
			}
			out[i] += (s0 + s1) + (s2 + s3)
		}
	}
}
