//go:build !amd64

package charlm

import "math"

// expInto sets dst[i] = math.Exp(src[i]) for every i (dst may be src).
func expInto(dst, src []float64) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = math.Exp(x)
	}
}
