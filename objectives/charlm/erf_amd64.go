//go:build !purego

package charlm

import (
	"math"

	"github.com/pipelab/pipelab/internal/vec"
)

// erfGroups is erfScalar four values at a time (erf_amd64.s), bit for
// bit, for groups without NaN and div > 0; it returns the number of
// groups done before the first holding a NaN. consts is erfConsts,
// scratch its working space.
//
//go:noescape
func erfGroups(dst, prod, src *float64, groups int, div float64, cdf bool, consts *[erfConstCount][4]uint64, scratch *[erfScratch]float64) int

const (
	erfChunk   = 16               // groups erfGroups takes a pass at a time
	erfScratch = 5 * 4 * erfChunk // five rows of a group's four lanes
)

// erfGroups runs where vec.Kernels.AVX2FMA is on: it needs AVX2 (its integer
// lanes and VPERMD) and FMA (its exponentials are math.Exp's FMA path,
// which math.Exp takes exactly then, as expGroups).

// erfVector does erfInto's work four values at a time for as long as it
// can, a group holding a NaN by erfScalar, and returns the number of
// values done: all but the last len(src) mod 4, or 0 without AVX2.
func erfVector(dst, prod, src []float64, div float64, cdf bool) int {
	if !vec.Kernels.AVX2FMA || vec.Kernels.Disabled.Erf {
		return 0
	}
	var scratch [erfScratch]float64
	i := 0
	for i+4 <= len(src) {
		var p *float64
		if prod != nil {
			p = &prod[i]
		}
		i += 4 * erfGroups(&dst[i], p, &src[i], (len(src)-i)/4, div, cdf, &erfConsts, &scratch)
		if i+4 <= len(src) {
			erfScalar(dst[i:i+4], sub(prod, i, i+4), src[i:i+4], div, cdf)
			i += 4
		}
	}
	return i
}

// erfConstCount is the number of erfConsts' rows.
const erfConstCount = 57

// erfConsts are erfGroups' operands, 32 bytes a row (erf_amd64.s names
// them by offset): rows 0–30 a constant in every lane, rows 31–38 the
// numerator's coefficients P_0 … P_7 and rows 39–46 the denominator's
// Q_1 … Q_8 (Q = 1 + v·(Q_1 + …)), each row the four ranges' coefficient
// in the order of the ranges; rows 47–56 the first range's pp0 … pp4,
// qq1 … qq5 in every lane, for chunks without other ranges. The
// exponential's constants are math.Exp's on amd64 (math/exp_amd64.s), as
// in exp_amd64.s.
var erfConsts = func() (c [erfConstCount][4]uint64) {
	splat := func(bits uint64) [4]uint64 { return [4]uint64{bits, bits, bits, bits} }
	f := math.Float64bits
	for i, bits := range []uint64{
		0x7fffffffffffffff, 1 << 63, f(1), f(0.5), // 0 abs, 1 sign, 2 one, 3 half
		f(0.84375), f(1.25), f(1 / 0.35), f(6), // 4–7 the ranges' lower ends
		0x0000000200000002, 0x0000000100000000, // 8 a range's step in the VPERMD index, 9 its odd half
		f(erx), 0xffffffff00000000, f(0.5625), // 10 erx, 11 z's mask, 12 0.5625
		f(1.0 / (1 << 28)), f(2.848094538889218e-306), f(efx), f(efx8), f(8), f(0.125), // 13–18 small arguments
		f(1.4426950408889634073599246810018920),                  // 19 log₂e
		f(0.69314718055966295651160180568695068359375),           // 20 ln 2, upper part
		f(0.28235290563031577122588448175013436025525412068e-12), // 21 ln 2, lower part
		f(0.0625),                                                                             // 22
		f(2.4801587301587301587e-5), f(1.9841269841269841270e-4), f(1.3888888888888888889e-3), // 23–25 1/8!, 1/7!, 1/6!
		f(8.3333333333333333333e-3), f(4.1666666666666666667e-2), f(1.6666666666666666667e-1), // 26–28 1/5!, 1/4!, 1/3!
		f(2), 1023, // 29 two, 30 the exponent's bias
	} {
		c[i] = splat(bits)
	}
	coef := func(low, mid, a, b float64) [4]uint64 { return [4]uint64{f(low), f(mid), f(a), f(b)} }
	p := [][4]uint64{
		coef(pp0, pa0, ra0, rb0), coef(pp1, pa1, ra1, rb1), coef(pp2, pa2, ra2, rb2), coef(pp3, pa3, ra3, rb3),
		coef(pp4, pa4, ra4, rb4), coef(0, pa5, ra5, rb5), coef(0, pa6, ra6, rb6), coef(0, 0, ra7, 0),
	}
	q := [][4]uint64{
		coef(qq1, qa1, sa1, sb1), coef(qq2, qa2, sa2, sb2), coef(qq3, qa3, sa3, sb3), coef(qq4, qa4, sa4, sb4),
		coef(qq5, qa5, sa5, sb5), coef(0, qa6, sa6, sb6), coef(0, 0, sa7, sb7), coef(0, 0, sa8, 0),
	}
	copy(c[31:], p)
	copy(c[39:], q)
	for i, v := range []float64{pp0, pp1, pp2, pp3, pp4, qq1, qq2, qq3, qq4, qq5} {
		c[47+i] = splat(f(v))
	}
	return c
}()
