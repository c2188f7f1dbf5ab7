package vec

import (
	"fmt"
	"math"
	"testing"
)

// AddBlockDots must add Dot(row start+i of blocks[j], x[j]) to out[i] for
// every block, to the bit, with the vector kernel and without it: every
// row count through the kernel's groups of 4, 2 and 1, widths of one chunk
// of 4 and of several, mixed widths, widths the kernel leaves to Go (3, 5,
// 6), a start past row 0, products of -0 (whose sum Dot makes +0), an out
// of -0, and sums that round. Dot itself sums every row.
func TestAddBlockDotsIsDotPerRow(t *testing.T) {
	for _, widths := range [][]int{{4}, {8}, {12}, {16, 16}, {4, 8, 4, 12}, {4, 3}, {5, 6}} {
		for n := 1; n <= 11; n++ {
			for _, start := range []int{0, 3} {
				blocks, x := blockData(widths, start+n+1)
				init := make([]float64, n)
				for i := range init {
					init[i] = math.Sin(float64(11*i+5)) * 1e3
					if i == 2 {
						init[i] = math.Copysign(0, -1) // -0 + Dot's +0 is +0
					}
				}
				want := append([]float64(nil), init...)
				for j, xj := range x {
					w := len(xj)
					for i := range want {
						want[i] += Dot(blocks[j][(start+i)*w:(start+i+1)*w], xj)
					}
				}
				for _, vector := range []bool{true, false} {
					got := append([]float64(nil), init...)
					withAVX(vector && Kernels.AVX, func() { AddBlockDots(got, blocks, start, x) })
					for i := range got {
						if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
							t.Errorf("widths %v, %d rows from %d, vector %v: row %d: %.17g, Dot %.17g",
								widths, n, start, vector && Kernels.AVX, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// blockData returns blocks of the given widths holding n rows, and a point
// for them, with zeros of both signs among values of many magnitudes: the
// products of row 2 are all -0.
func blockData(widths []int, n int) ([][]float64, [][]float64) {
	blocks, x := make([][]float64, len(widths)), make([][]float64, len(widths))
	for j, w := range widths {
		x[j] = make([]float64, w)
		for c := range x[j] {
			x[j][c] = math.Sin(float64(3*c+7*j+1)) * math.Pow(10, float64((c+j)%7-3))
		}
		blocks[j] = make([]float64, n*w)
		for k := range blocks[j] {
			blocks[j][k] = math.Cos(float64(5*k+j+2)) / float64(k%4+1)
			if k/w == 2 || k%13 == 0 {
				blocks[j][k] = math.Copysign(0, -x[j][k%w])
			}
		}
	}
	return blocks, x
}

// withAVX runs f with the vector kernels on or off.
func withAVX(on bool, f func()) {
	defer func(was bool) { Kernels.AVX = was }(Kernels.AVX)
	Kernels.AVX = on
	f()
}

// BenchmarkAddBlockDots times RPD's forward on the scaling figure's
// logistic protocol (d = 512, batch 10) at S = 128, 64 and 8 blocks, with
// the vector kernel and with AddDots block by block.
func BenchmarkAddBlockDots(b *testing.B) {
	for _, stages := range []int{128, 64, 8} {
		widths := make([]int, stages)
		for j := range widths {
			widths[j] = 512 / stages
		}
		blocks, x := blockData(widths, 600)
		out := make([]float64, 10)
		for _, mode := range []struct {
			name   string
			vector bool
		}{{"avx", true}, {"go", false}} {
			b.Run(fmt.Sprintf("S=%d/%s", stages, mode.name), func(b *testing.B) {
				withAVX(mode.vector && Kernels.AVX, func() {
					for b.Loop() {
						AddBlockDots(out, blocks, 300, x)
					}
				})
			})
		}
	}
}
