package charlm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The LayerNorm kernels before rows were taken four at a time, kept as the
// reference they must match bit for bit (TestLayerNormMatchesRowByRow).

func layerNormForwardRowByRow(out, xhat, rstd, in, gain, bias []float64, n, d int) {
	gain, bias = gain[:d], bias[:d]
	for i := 0; i < n; i++ {
		x := in[i*d : i*d+d]
		var mean float64
		for _, v := range x {
			mean += v
		}
		mean /= float64(d)
		var variance float64
		for _, v := range x {
			variance += float64((v - mean) * (v - mean))
		}
		variance /= float64(d)
		r := 1 / math.Sqrt(variance+layerNormEps)
		rstd[i] = r
		xh := xhat[i*d : i*d+d]
		o := out[i*d : i*d+d]
		for j, v := range x {
			xh[j] = (v - mean) * r
			o[j] = float64(xh[j]*gain[j]) + bias[j]
		}
	}
}

func layerNormBackwardRowByRow(din, dgain, dbias, dout, xhat, rstd, gain []float64, n, d int) {
	gain, dgain, dbias = gain[:d], dgain[:d], dbias[:d]
	for i := 0; i < n; i++ {
		dy := dout[i*d : i*d+d]
		xh := xhat[i*d : i*d+d]
		var meanG, meanGX float64
		for j, g := range dy {
			dgain[j] += float64(g * xh[j])
			dbias[j] += g
			gx := float64(g * gain[j])
			meanG += gx
			meanGX += float64(gx * xh[j])
		}
		meanG /= float64(d)
		meanGX /= float64(d)
		dx := din[i*d : i*d+d]
		r := rstd[i]
		for j, g := range dy {
			dx[j] += float64(r * (float64(g*gain[j]) - meanG - float64(xh[j]*meanGX)))
		}
	}
}

// TestLayerNormMatchesRowByRow checks every output of layerNormForward
// and layerNormBackward against the row-by-row kernels above, bit for bit,
// in each vector mode, at the remedies shape (64 rows of 16), the default
// one (512 of 64) and row counts that leave every remainder of eight and
// four, with inputs of mean far from zero (whose variance sums cancel)
// and exact zeros.
func TestLayerNormMatchesRowByRow(t *testing.T) {
	forVectorModes(t, testLayerNorm)
}

func testLayerNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 19))
	for _, size := range [][2]int{{64, 16}, {512, 64}, {8, 16}, {13, 16}, {23, 16}, {1, 16}, {2, 5}, {3, 7}, {5, 16}, {7, 6}, {9, 1}, {16, 8}} {
		n, d := size[0], size[1]
		in := randomVector(rng, n*d, 3)
		for i := range in {
			in[i] += 100
		}
		in[0] = 0
		gain, bias := randomVector(rng, d, 1), randomVector(rng, d, 1)
		dout := randomVector(rng, n*d, 1)
		dout[len(dout)-1] = math.Copysign(0, -1)
		outs := func(forward func(out, xhat, rstd, in, gain, bias []float64, n, d int),
			backward func(din, dgain, dbias, dout, xhat, rstd, gain []float64, n, d int)) [][]float64 {
			out, xhat, rstd := make([]float64, n*d), make([]float64, n*d), make([]float64, n)
			forward(out, xhat, rstd, in, gain, bias, n, d)
			din := append([]float64(nil), dout...)
			dgain, dbias := append([]float64(nil), gain...), append([]float64(nil), bias...)
			backward(din, dgain, dbias, dout, xhat, rstd, gain, n, d)
			return [][]float64{out, xhat, rstd, din, dgain, dbias}
		}
		got := outs(layerNormForward, layerNormBackward)
		want := outs(layerNormForwardRowByRow, layerNormBackwardRowByRow)
		for o, name := range []string{"out", "xhat", "rstd", "din", "dgain", "dbias"} {
			sameBits(t, fmt.Sprintf("layerNorm %s", name), [3]int{n, d, 0}, got[o], want[o])
		}
	}
}
