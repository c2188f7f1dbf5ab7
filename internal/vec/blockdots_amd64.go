package vec

import "golang.org/x/sys/cpu"

// avx reports whether the vector kernels may run; tests turn it off to
// compare them with the Go code.
var avx = cpu.X86.HasAVX

// addBlockDotsAVX is AddBlockDots for blocks whose widths are positive
// multiples of 4 and that hold the rows asked for (blockdots_amd64.s).
//
//go:noescape
func addBlockDotsAVX(out []float64, blocks [][]float64, start int, x [][]float64)

// blockDotsVector runs AddBlockDots with AVX when every block fits the
// kernel, and reports whether it did.
func blockDotsVector(out []float64, blocks [][]float64, start int, x [][]float64) bool {
	if !avx || start < 0 {
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
