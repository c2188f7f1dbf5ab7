package charlm

// erfGroups is erfScalar four values at a time (erf_amd64.s), bit for
// bit, for groups whose scaled values all lie below erfMax in magnitude;
// it returns the number of groups done before the first that does not.
//
//go:noescape
func erfGroups(dst, src *float64, groups int, scale float64, table *float64, cdf bool) int

// vectorErf reports whether erfGroups may run (AVX2: its gathers and
// integer lanes).
var vectorErf = avx && hasAVX2FMA()

// erfVector does erfInto's work four values at a time for as long as it
// can, a group with a value beyond erfMax (or NaN) by erfScalar, and
// returns the number of values done: all but the last len(src) mod 4, or
// 0 without AVX2.
func erfVector(dst, src []float64, scale float64, cdf bool) int {
	if !vectorErf {
		return 0
	}
	i := 0
	for i+4 <= len(src) {
		i += 4 * erfGroups(&dst[i], &src[i], (len(src)-i)/4, scale, &erfTable[0], cdf)
		if i+4 <= len(src) {
			erfScalar(dst[i:i+4], src[i:i+4], scale, cdf)
			i += 4
		}
	}
	return i
}
