//go:build !purego

package charlm

import (
	"math"

	"github.com/pipelab/pipelab/internal/vec"
)

// expGroups is math.Exp four values at a time (exp_amd64.s), bit for bit,
// for groups whose values all lie in (-700, 700); it returns the number
// of groups done before the first that does not.
//
//go:noescape
func expGroups(dst, src *float64, groups int) int

// expGroups runs where vec.Kernels.AVX2FMA is on: it needs AVX2 and FMA, and
// math.Exp takes its FMA path exactly then (math/exp_asm.go), so the two
// agree.

// expInto sets dst[i] = math.Exp(src[i]) for every i (dst may be src),
// four at a time where the processor allows, bit for bit either way.
func expInto(dst, src []float64) {
	dst = dst[:len(src)]
	i := 0
	if vec.Kernels.AVX2FMA && !vec.Kernels.Disabled.Exp {
		for i+4 <= len(src) {
			done := expGroups(&dst[i], &src[i], (len(src)-i)/4)
			i += 4 * done
			if i+4 <= len(src) {
				for j := i; j < i+4; j++ {
					dst[j] = math.Exp(src[j])
				}
				i += 4
			}
		}
	}
	for ; i < len(src); i++ {
		dst[i] = math.Exp(src[i])
	}
}
