package charlm

import "math"

// layerNormEps is added to the variance before the square root, as in
// PyTorch's nn.LayerNorm default.
const layerNormEps = 1e-5

// layerNormForward normalises each of the n rows of in (width d) to zero
// mean and unit (biased) variance, then scales by gain and shifts by bias:
// out = xhat·gain + bias. It keeps xhat and the reciprocal standard
// deviation rstd (one per row) for the backward pass.
func layerNormForward(out, xhat, rstd, in, gain, bias []float64, n, d int) {
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
			variance += (v - mean) * (v - mean)
		}
		variance /= float64(d)
		r := 1 / math.Sqrt(variance+layerNormEps)
		rstd[i] = r
		xh := xhat[i*d : i*d+d]
		o := out[i*d : i*d+d]
		for j, v := range x {
			xh[j] = (v - mean) * r
			o[j] = xh[j]*gain[j] + bias[j]
		}
	}
}

// layerNormBackward accumulates dgain += Σ dout·xhat and dbias += Σ dout,
// and adds the input gradient to din:
// din += rstd·(dxhat - mean(dxhat) - xhat·mean(dxhat·xhat)), dxhat = dout·gain.
func layerNormBackward(din, dgain, dbias, dout, xhat, rstd, gain []float64, n, d int) {
	if dgain == nil {
		layerNormInputGradient(din, dout, xhat, rstd, gain, n, d)
		return
	}
	gain, dgain, dbias = gain[:d], dgain[:d], dbias[:d]
	for i := 0; i < n; i++ {
		dy := dout[i*d : i*d+d]
		xh := xhat[i*d : i*d+d]
		var meanG, meanGX float64
		for j, g := range dy {
			dgain[j] += g * xh[j]
			dbias[j] += g
			gx := g * gain[j]
			meanG += gx
			meanGX += gx * xh[j]
		}
		meanG /= float64(d)
		meanGX /= float64(d)
		dx := din[i*d : i*d+d]
		r := rstd[i]
		for j, g := range dy {
			dx[j] += r * (g*gain[j] - meanG - xh[j]*meanGX)
		}
	}
}
