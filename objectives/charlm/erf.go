package charlm

import "math"

// erfInto sets dst[k] = math.Erf(src[k]/div) for every k (div > 0), or,
// if cdf is set, (1 + math.Erf(src[k]/div))/2, which with div = √2 is
// Φ(src[k]), and, unless prod is nil, prod[k] = src[k]·dst[k]: with div =
// √2 and cdf, the GELU's Φ and x·Φ(x) (dst may be src; prod may not). Bit for bit math.Erf either
// way: groups of four run as vectors where the processor allows
// (erfVector, the operations of Go's math.Erf lane by lane), the rest one
// value at a time by erfScalar.
func erfInto(dst, prod, src []float64, div float64, cdf bool) {
	dst = dst[:len(src)]
	if prod != nil {
		prod = prod[:len(src)]
	}
	i := erfVector(dst, prod, src, div, cdf)
	erfScalar(dst[i:], sub(prod, i, len(src)), src[i:], div, cdf)
}

// erfScalar is erfInto one value at a time, by erf.
func erfScalar(dst, prod, src []float64, div float64, cdf bool) {
	dst = dst[:len(src)]
	for k, x := range src {
		e := erf(x / div)
		if cdf {
			e = 0.5 * (1 + e)
		}
		dst[k] = e
		if prod != nil {
			prod[k] = x * e
		}
	}
}

// sub is s[i:j], or nil for a nil s.
func sub(s []float64, i, j int) []float64 {
	if s == nil {
		return nil
	}
	return s[i:j]
}

// Go's math.Erf (math/erf.go, after FreeBSD's s_erf.c) evaluates, for
// x = |argument|, a rational function P(v)/Q(v) on one of four ranges:
// v = x² below 0.84375 (pp/qq), v = x − 1 below 1.25 (pa/qa), v = 1/x²
// below 1/0.35 (ra/sa) and from there to 6 (rb/sb); beyond 6 erf is 1,
// below 2⁻²⁸ it is x + efx·x. erfGroups evaluates all four lanes' P and
// Q in one Horner scheme of degree 7 and 8 whose coefficients each lane
// picks from its range's (VPERMD): a range with fewer terms has leading
// zeros, which leave its Horner sums exact (c + v·0 = c).
const (
	erx  = 8.45062911510467529297e-01
	efx  = 1.28379167095512586316e-01
	efx8 = 1.02703333676410069053e+00
	pp0  = 1.28379167095512558561e-01
	pp1  = -3.25042107247001499370e-01
	pp2  = -2.84817495755985104766e-02
	pp3  = -5.77027029648944159157e-03
	pp4  = -2.37630166566501626084e-05
	qq1  = 3.97917223959155352819e-01
	qq2  = 6.50222499887672944485e-02
	qq3  = 5.08130628187576562776e-03
	qq4  = 1.32494738004321644526e-04
	qq5  = -3.96022827877536812320e-06
	pa0  = -2.36211856075265944077e-03
	pa1  = 4.14856118683748331666e-01
	pa2  = -3.72207876035701323847e-01
	pa3  = 3.18346619901161753674e-01
	pa4  = -1.10894694282396677476e-01
	pa5  = 3.54783043256182359371e-02
	pa6  = -2.16637559486879084300e-03
	qa1  = 1.06420880400844228286e-01
	qa2  = 5.40397917702171048937e-01
	qa3  = 7.18286544141962662868e-02
	qa4  = 1.26171219808761642112e-01
	qa5  = 1.36370839120290507362e-02
	qa6  = 1.19844998467991074170e-02
	ra0  = -9.86494403484714822705e-03
	ra1  = -6.93858572707181764372e-01
	ra2  = -1.05586262253232909814e+01
	ra3  = -6.23753324503260060396e+01
	ra4  = -1.62396669462573470355e+02
	ra5  = -1.84605092906711035994e+02
	ra6  = -8.12874355063065934246e+01
	ra7  = -9.81432934416914548592e+00
	sa1  = 1.96512716674392571292e+01
	sa2  = 1.37657754143519042600e+02
	sa3  = 4.34565877475229228821e+02
	sa4  = 6.45387271733267880336e+02
	sa5  = 4.29008140027567833386e+02
	sa6  = 1.08635005541779435134e+02
	sa7  = 6.57024977031928170135e+00
	sa8  = -6.04244152148580987438e-02
	rb0  = -9.86494292470009928597e-03
	rb1  = -7.99283237680523006574e-01
	rb2  = -1.77579549177547519889e+01
	rb3  = -1.60636384855821916062e+02
	rb4  = -6.37566443368389627722e+02
	rb5  = -1.02509513161107724954e+03
	rb6  = -4.83519191608651397019e+02
	sb1  = 3.03380607434824582924e+01
	sb2  = 3.25792512996573918826e+02
	sb3  = 1.53672958608443695994e+03
	sb4  = 3.19985821950859553908e+03
	sb5  = 2.55305040643316442583e+03
	sb6  = 4.74528541206955367215e+02
	sb7  = -2.24409524465858183362e+01
)

// erf is math.Erf bit for bit as Go compiles it without fused
// multiply-adds: the same ranges, polynomials and exponentials, each
// product rounded before it is added (madd), so that a GOAMD64=v3 build,
// which compiles math.Erf with FMA, gives the same bits as the others and
// as erfGroups.
func erf(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return math.NaN()
	case math.IsInf(x, 0):
		return math.Copysign(1, x)
	case x == 0:
		return x // ±0, as math.Erf
	}
	a := math.Abs(x)
	var r float64
	switch {
	case a < 0.84375:
		r = erfSmall(a)
	case a < 1.25:
		s := a - 1
		p := madd(s, madd(s, madd(s, madd(s, madd(s, madd(s, pa6, pa5), pa4), pa3), pa2), pa1), pa0)
		q := madd(s, madd(s, madd(s, madd(s, madd(s, madd(s, qa6, qa5), qa4), qa3), qa2), qa1), 1)
		r = erx + p/q
	case a >= 6:
		r = 1
	default:
		r = 1 - erfTail(a)/a
	}
	if x < 0 {
		return -r
	}
	return r
}

// erfSmall is erf(a) for 0 ≤ a < 0.84375.
func erfSmall(a float64) float64 {
	switch {
	case a < 2.848094538889218e-306: // avoids underflow
		return 0.125 * (float64(8*a) + float64(efx8*a))
	case a < 1.0/(1<<28):
		return a + float64(efx*a)
	}
	z := float64(a * a)
	p := madd(z, madd(z, madd(z, madd(z, pp4, pp3), pp2), pp1), pp0)
	q := madd(z, madd(z, madd(z, madd(z, madd(z, qq5, qq4), qq3), qq2), qq1), 1)
	return a + float64(a*(p/q))
}

// erfTail is a·(1 − erf(a)) for 1.25 ≤ a < 6, from the rational function
// in s = 1/a² and exp(−a²) split as math.Erf splits it (z, a with its
// lower 32 bits cleared, squared exactly).
func erfTail(a float64) float64 {
	s := 1 / float64(a*a)
	var p, q float64
	if a < 1/0.35 {
		p = madd(s, madd(s, madd(s, madd(s, madd(s, madd(s, madd(s, ra7, ra6), ra5), ra4), ra3), ra2), ra1), ra0)
		q = madd(s, madd(s, madd(s, madd(s, madd(s, madd(s, madd(s, madd(s, sa8, sa7), sa6), sa5), sa4), sa3), sa2), sa1), 1)
	} else {
		p = madd(s, madd(s, madd(s, madd(s, madd(s, madd(s, rb6, rb5), rb4), rb3), rb2), rb1), rb0)
		q = madd(s, madd(s, madd(s, madd(s, madd(s, madd(s, madd(s, sb7, sb6), sb5), sb4), sb3), sb2), sb1), 1)
	}
	z := math.Float64frombits(math.Float64bits(a) & 0xffffffff00000000)
	return math.Exp(float64(-z*z)-0.5625) * math.Exp(float64((z-a)*(z+a))+p/q)
}

// madd is a·b + c with the product rounded first: never a fused
// multiply-add, in any build.
func madd(a, b, c float64) float64 { return float64(a*b) + c }
