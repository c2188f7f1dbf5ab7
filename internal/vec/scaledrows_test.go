package vec

import (
	"fmt"
	"math"
	"testing"
)

// AddScaledRows must equal the plain loop (g[c] += r[i]·row_i[c], rows in
// order) to the bit, with the vector kernel and without it: widths through
// the kernel's groups of 16 and 4 columns and widths it leaves to Go, 1 to
// 7 rows, a zero r[i] (whose products of ±0 can turn a -0 in g into +0),
// products of -0 and sums that round.
func TestAddScaledRowsIsTheLoop(t *testing.T) {
	for _, w := range []int{4, 8, 12, 16, 20, 32, 36, 64, 3, 5, 17} {
		for n := 1; n <= 7; n++ {
			rows, r := make([]float64, n*w), make([]float64, n)
			for i := range r {
				r[i] = math.Sin(float64(5*i+1)) * math.Pow(10, float64(i%5-2))
			}
			r[n/2] = 0
			for k := range rows {
				rows[k] = math.Cos(float64(7*k+3)) / float64(k%3+1)
				if k%11 == 0 {
					rows[k] = math.Copysign(0, -r[k/w])
				}
			}
			init := make([]float64, w)
			for c := range init {
				init[c] = math.Sin(float64(c)) * 1e2
				if c%5 == 1 {
					init[c] = math.Copysign(0, -1)
				}
			}
			want := append([]float64(nil), init...)
			for i, ri := range r {
				for c := range want {
					want[c] += float64(ri * rows[i*w+c])
				}
			}
			for _, vector := range []bool{true, false} {
				got := append([]float64(nil), init...)
				withAVX(vector && Kernels.AVX, func() { AddScaledRows(got, rows, r) })
				for c := range got {
					if math.Float64bits(got[c]) != math.Float64bits(want[c]) {
						t.Errorf("w = %d, %d rows, vector %v: column %d: %.17g, loop %.17g", w, n, vector && Kernels.AVX, c, got[c], want[c])
					}
				}
			}
		}
	}
}

// BenchmarkAddScaledRows times the backward's block product on the
// scaling figure's logistic blocks (batch 10; 4 columns at S = 128, 64 at
// S = 8) and the PD-versus-RPD quadratic's (batch 100, 64 columns), with
// the kernel and with the loop.
func BenchmarkAddScaledRows(b *testing.B) {
	for _, c := range []struct{ n, w int }{{10, 4}, {10, 64}, {100, 64}} {
		rows, r, g := make([]float64, c.n*c.w), make([]float64, c.n), make([]float64, c.w)
		for k := range rows {
			rows[k] = 1 / float64(k+1)
		}
		for i := range r {
			r[i] = 1 / float64(i+2)
		}
		for _, mode := range []struct {
			name   string
			vector bool
		}{{"avx", true}, {"go", false}} {
			b.Run(fmt.Sprintf("%dx%d/%s", c.n, c.w, mode.name), func(b *testing.B) {
				withAVX(mode.vector && Kernels.AVX, func() {
					for b.Loop() {
						AddScaledRows(g, rows, r)
					}
				})
			})
		}
	}
}
