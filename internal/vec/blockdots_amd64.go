//go:build !purego

package vec

// addBlockDotsAVX is AddBlockDots for blocks whose widths are positive
// multiples of 4 and that hold the rows asked for (blockdots_amd64.s).
//
//go:noescape
func addBlockDotsAVX(out []float64, blocks [][]float64, start int, x [][]float64)

// blockDotsVector runs AddBlockDots with AVX when every block fits the
// kernel, and reports whether it did.
func blockDotsVector(out []float64, blocks [][]float64, start int, x [][]float64) bool {
	if !Kernels.AVX || Kernels.Disabled.BlockDots || start < 0 {
		return false
	}
	end := start + len(out)
	for j, xj := range x {
		w := len(xj)
		if w == 0 || w%4 != 0 || len(blocks[j]) < end*w {
			return false
		}
	}
	addBlockDotsAVX(out, blocks, start, x)
	return true
}
