package objectives

import (
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// blockGradientLoop is the plain loop BlockGradient stands for, without
// the L2 term and the noise: g += Σ_i r_i · row i of the batch's block, row
// by row.
func blockGradientLoop(m *Linear, g, r []float64, b, s int) {
	w := len(g)
	c := m.columns[s][b*m.batchSize*w:]
	for i, ri := range r {
		row := c[i*w : (i+1)*w]
		for j, v := range row {
			g[j] += ri * v
		}
	}
}

// blockGradientGemv is what BlockGradient ran before vec.AddScaledRows:
// gonum's transposed Gemv on the batch's block.
func blockGradientGemv(m *Linear, g, r []float64, b, s int) {
	w := len(g)
	c := m.columns[s][b*m.batchSize*w:]
	blas64.Gemv(blas.Trans, 1, blas64.General{Rows: len(r), Cols: w, Stride: w, Data: c[:len(r)*w]},
		blas64.Vector{N: len(r), Inc: 1, Data: r}, 1, blas64.Vector{N: w, Inc: 1, Data: g})
}

func kernelCase(t testing.TB, n, d, stages, batch int) *Linear {
	t.Helper()
	data, err := RandomLogistic(n, d, 3)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewLogistic(data, stages, batch, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The block gradient performs the loop's operations in the loop's order,
// and so did gonum's transposed Gemv before it: the three agree bit for
// bit, on every block and batch, at widths the vector kernel takes (4, 16,
// 48) and leaves to Go (9, 10).
func TestBlockGradientKernelMatchesLoop(t *testing.T) {
	for _, c := range []struct{ d, stages int }{{37, 4}, {64, 16}, {64, 4}, {96, 2}} {
		m := kernelCase(t, 60, c.d, c.stages, 6)
		r := make([]float64, 6)
		for i := range r {
			r[i] = math.Sin(float64(i) + 0.5)
		}
		xs := make([]float64, c.d)
		for b := 0; b < m.Batches(); b++ {
			for s := 0; s < c.stages; s++ {
				w := m.blocks[s+1] - m.blocks[s]
				got, loop, gemv := make([]float64, w), make([]float64, w), make([]float64, w)
				m.BlockGradient(got, r, xs[:w], b, s, nil)
				blockGradientLoop(m, loop, r, b, s)
				blockGradientGemv(m, gemv, r, b, s)
				for j := range got {
					if math.Float64bits(got[j]) != math.Float64bits(loop[j]) || math.Float64bits(gemv[j]) != math.Float64bits(loop[j]) {
						t.Fatalf("d = %d, S = %d, batch %d block %d [%d]: BlockGradient %.17g, loop %.17g, gonum %.17g", c.d, c.stages, b, s, j, got[j], loop[j], gemv[j])
					}
				}
			}
		}
	}
}

// ForwardBlocks is Forward stage after stage, to the bit, for blocks of
// the narrow widths it has its own paths for (4 and 8) and others (5, 7
// and 6 at d = 37 on 6 stages).
func TestForwardBlocksIsForwardPerStage(t *testing.T) {
	for _, c := range []struct{ d, stages int }{{64, 16}, {64, 8}, {37, 6}} {
		m := kernelCase(t, 60, c.d, c.stages, 6)
		z := make([][]float64, c.stages)
		for s := range z {
			z[s] = make([]float64, m.blocks[s+1]-m.blocks[s])
			for j := range z[s] {
				z[s][j] = math.Sin(float64(7*s+j)) / float64(j+1)
			}
		}
		for b := 0; b < m.Batches(); b++ {
			got, want := make([]float64, 6), make([]float64, 6)
			m.ForwardBlocks(got, z, b)
			for s := range z {
				m.Forward(want, z[s], b, s)
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("d = %d, S = %d, batch %d row %d: fused %.17g, per stage %.17g", c.d, c.stages, b, i, got[i], want[i])
				}
			}
		}
	}
}

// The block gradient of the scaling figure's logistic protocol (block of
// 512/8 = 64 columns, batch 10) and of the PD-versus-RPD quadratic's
// (batch 100), through vec.AddScaledRows against the plain loop and
// against gonum's transposed Gemv, which BlockGradient ran before, the
// three interleaved in every iteration.
func BenchmarkBlockGradient(b *testing.B) {
	for _, c := range []struct {
		name  string
		batch int
	}{{"batch10", 10}, {"batch100", 100}} {
		b.Run(c.name, func(b *testing.B) {
			m := kernelCase(b, 2000, 512, 8, c.batch)
			r, g, xs := make([]float64, c.batch), make([]float64, 64), make([]float64, 64)
			for i := range r {
				r[i] = 1 / float64(i+1)
			}
			var kernel, loop, gemv time.Duration
			for b.Loop() {
				t0 := time.Now()
				for s := 0; s < 8; s++ {
					m.BlockGradient(g, r, xs, 0, s, nil)
				}
				t1 := time.Now()
				for s := 0; s < 8; s++ {
					blockGradientLoop(m, g, r, 0, s)
				}
				t2 := time.Now()
				for s := 0; s < 8; s++ {
					blockGradientGemv(m, g, r, 0, s)
				}
				kernel, loop, gemv = kernel+t1.Sub(t0), loop+t2.Sub(t1), gemv+time.Since(t2)
			}
			b.ReportMetric(float64(kernel)/float64(loop), "kernel/loop")
			b.ReportMetric(float64(kernel)/float64(gemv), "kernel/gemv")
		})
	}
}

// The loss's activations through gonum's Gemv against vec.Dot row by row:
// two orders of summing the same d products, each within γ_d·Σ|x_j w_j|
// of the exact sum (γ_d = d·u/(1 - d·u), u = 2⁻⁵³: Higham, Accuracy and
// Stability of Numerical Algorithms, §3.1), so within twice that of each
// other. The bound is checked, and that the two are not all equal (else
// the test would not see an order change).
func TestActivationsWithinDotRounding(t *testing.T) {
	m := kernelCase(t, 200, 512, 8, 10)
	x := make([]float64, 512)
	for j := range x {
		x[j] = math.Sin(float64(j)+0.3) / 3
	}
	got := m.activations(x)
	d := float64(m.data.Cols)
	u := math.Ldexp(1, -53)
	gamma := d * u / (1 - d*u)
	differ := 0
	for i, a := range got {
		row := m.data.X[i*m.data.Cols : (i+1)*m.data.Cols]
		var abs float64
		for j, v := range row {
			abs += math.Abs(v * x[j])
		}
		want := matVec(row, 1, m.data.Cols, x)[0]
		if math.Abs(a-want) > 2*gamma*abs {
			t.Errorf("row %d: Gemv %.17g, Dot %.17g: differ by %.3g, bound %.3g", i, a, want, math.Abs(a-want), 2*gamma*abs)
		}
		if a != want {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("all %d rows equal to the bit: the two orders were expected to differ somewhere", len(got))
	}
	t.Logf("%d of %d rows differ in their last bits", differ, len(got))
}
