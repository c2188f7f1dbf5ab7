package charlm

import "math"

// erfInto sets dst[k] = math.Erf(src[k]/div) for every k, or, if cdf is
// set, (1 + math.Erf(src[k]/div))/2, which with div = √2 is Φ(src[k]):
// the loop the GELU runs (dst may be src). Bit for bit math.Erf either
// way: groups of four run as vectors where the processor allows
// (erfVector, the operations of Go's math.Erf lane by lane), the rest one
// value at a time by erfScalar.
func erfInto(dst, src []float64, div float64, cdf bool) {
	dst = dst[:len(src)]
	i := erfVector(dst, src, div, cdf)
	erfScalar(dst[i:], src[i:], div, cdf)
}

// erfScalar is erfInto one value at a time, by math.Erf.
func erfScalar(dst, src []float64, div float64, cdf bool) {
	dst = dst[:len(src)]
	for k, x := range src {
		e := math.Erf(x / div)
		if cdf {
			e = 0.5 * (1 + e)
		}
		dst[k] = e
	}
}
