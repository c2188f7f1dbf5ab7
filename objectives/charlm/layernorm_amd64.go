//go:build !purego

package charlm

import "github.com/pipelab/pipelab/internal/vec"

// layerNorm16 is layerNormForward for blocks·8 rows of 16 values with
// AVX-512, eight rows at a time, bit for bit (layernorm_amd64.s).
//
//go:noescape
func layerNorm16(out, xhat, rstd, in, gain, bias *float64, blocks int, d, eps, one float64)

// layerNormVector does the first n&^7 rows of layerNormForward with
// layerNorm16 where the rows are 16 wide and the processor has AVX-512,
// and returns how many it did.
func layerNormVector(out, xhat, rstd, in, gain, bias []float64, n, d int) int {
	blocks := n / 8
	if !vec.Kernels.AVX512 || vec.Kernels.Disabled.LayerNorm || d != 16 || blocks == 0 {
		return 0
	}
	rows := 8 * blocks
	_, _, _, _ = out[rows*d-1], xhat[rows*d-1], rstd[rows-1], in[rows*d-1]
	_, _ = gain[d-1], bias[d-1]
	layerNorm16(&out[0], &xhat[0], &rstd[0], &in[0], &gain[0], &bias[0], blocks, float64(d), layerNormEps, 1)
	return rows
}

// layerNormBackward16 is layerNormBackward for blocks·8 rows of 16 values
// with AVX-512, eight rows at a time, bit for bit (layernorm_amd64.s).
//
//go:noescape
func layerNormBackward16(din, dgain, dbias, dout, xhat, rstd, gain *float64, blocks int, d float64)

// layerNormBackwardVector does the first n&^7 rows of layerNormBackward
// with layerNormBackward16 where the rows are 16 wide and the processor
// has AVX-512, and returns how many it did.
func layerNormBackwardVector(din, dgain, dbias, dout, xhat, rstd, gain []float64, n, d int) int {
	blocks := n / 8
	if !vec.Kernels.AVX512 || vec.Kernels.Disabled.LayerNorm || d != 16 || blocks == 0 {
		return 0
	}
	rows := 8 * blocks
	_, _, _, _ = din[rows*d-1], dout[rows*d-1], xhat[rows*d-1], rstd[rows-1]
	_, _, _ = dgain[d-1], dbias[d-1], gain[d-1]
	layerNormBackward16(&din[0], &dgain[0], &dbias[0], &dout[0], &xhat[0], &rstd[0], &gain[0], blocks, float64(d))
	return rows
}
