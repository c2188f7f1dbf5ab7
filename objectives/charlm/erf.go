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

// erfScalar is erfInto one value at a time, by math.Erf.
func erfScalar(dst, prod, src []float64, div float64, cdf bool) {
	dst = dst[:len(src)]
	for k, x := range src {
		e := math.Erf(x / div)
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
