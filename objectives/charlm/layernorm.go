package charlm

import "math"

// layerNormEps is added to the variance before the square root, as in
// PyTorch's nn.LayerNorm default.
const layerNormEps = 1e-5

// layerNormForward normalises each of the n rows of in (width d) to zero
// mean and unit (biased) variance, then scales by gain and shifts by bias:
// out = xhat·gain + bias. It keeps xhat and the reciprocal standard
// deviation rstd (one per row) for the backward pass.
//
// Each row's mean and variance are sums over the row in order; four rows
// are taken at a time so that their four chains of additions overlap,
// which changes no sum (layerNormForwardRow is one row, the remainder).
// Rows of 16 (the remedies shape's) go eight at a time with AVX-512
// (layerNormVector), lane by lane the same operations.
func layerNormForward(out, xhat, rstd, in, gain, bias []float64, n, d int) {
	gain, bias = gain[:d], bias[:d]
	fd := float64(d)
	i := layerNormVector(out, xhat, rstd, in, gain, bias, n, d)
	for ; i+4 <= n; i += 4 {
		x0 := in[i*d : i*d+d]
		x1 := in[(i+1)*d : (i+2)*d][:len(x0)]
		x2 := in[(i+2)*d : (i+3)*d][:len(x0)]
		x3 := in[(i+3)*d : (i+4)*d][:len(x0)]
		var m0, m1, m2, m3 float64
		for j, v := range x0 {
			m0 += v
			m1 += x1[j]
			m2 += x2[j]
			m3 += x3[j]
		}
		m0 /= fd
		m1 /= fd
		m2 /= fd
		m3 /= fd
		var v0, v1, v2, v3 float64
		for j, v := range x0 {
			c0, c1, c2, c3 := v-m0, x1[j]-m1, x2[j]-m2, x3[j]-m3
			v0 += float64(c0 * c0)
			v1 += float64(c1 * c1)
			v2 += float64(c2 * c2)
			v3 += float64(c3 * c3)
		}
		r := rstd[i : i+4 : i+4]
		r[0] = 1 / math.Sqrt(v0/fd+layerNormEps)
		r[1] = 1 / math.Sqrt(v1/fd+layerNormEps)
		r[2] = 1 / math.Sqrt(v2/fd+layerNormEps)
		r[3] = 1 / math.Sqrt(v3/fd+layerNormEps)
		normalise(out[i*d:i*d+d], xhat[i*d:i*d+d], x0, gain, bias, m0, r[0])
		normalise(out[(i+1)*d:(i+2)*d], xhat[(i+1)*d:(i+2)*d], x1, gain, bias, m1, r[1])
		normalise(out[(i+2)*d:(i+3)*d], xhat[(i+2)*d:(i+3)*d], x2, gain, bias, m2, r[2])
		normalise(out[(i+3)*d:(i+4)*d], xhat[(i+3)*d:(i+4)*d], x3, gain, bias, m3, r[3])
	}
	for ; i < n; i++ {
		layerNormForwardRow(out[i*d:i*d+d], xhat[i*d:i*d+d], &rstd[i], in[i*d:i*d+d], gain, bias)
	}
}

// layerNormForwardRow is layerNormForward of one row x.
func layerNormForwardRow(out, xhat []float64, rstd *float64, x, gain, bias []float64) {
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var variance float64
	for _, v := range x {
		variance += float64((v - mean) * (v - mean))
	}
	variance /= float64(len(x))
	r := 1 / math.Sqrt(variance+layerNormEps)
	*rstd = r
	normalise(out, xhat, x, gain, bias, mean, r)
}

// normalise sets xhat = (x - mean)·r and out = xhat·gain + bias for one
// row.
func normalise(out, xhat, x, gain, bias []float64, mean, r float64) {
	xhat, out = xhat[:len(x)], out[:len(x)]
	gain, bias = gain[:len(x)], bias[:len(x)]
	for j, v := range x {
		h := (v - mean) * r
		xhat[j] = h
		out[j] = float64(h*gain[j]) + bias[j]
	}
}

// layerNormBackward accumulates dgain += Σ dout·xhat and dbias += Σ dout,
// and adds the input gradient to din:
// din += rstd·(dxhat - mean(dxhat) - xhat·mean(dxhat·xhat)), dxhat = dout·gain.
//
// dgain and dbias take the rows in order and each row's means are sums in
// order, as one row at a time takes them; two rows go at a time, so that
// their chains of additions overlap (four at a time measured slower than
// one: BenchmarkLayerNorm). Rows of 16 go eight at a time with AVX-512
// (layerNormBackwardVector), lane by lane the same operations.
func layerNormBackward(din, dgain, dbias, dout, xhat, rstd, gain []float64, n, d int) {
	if dgain == nil {
		layerNormInputGradient(din, dout, xhat, rstd, gain, n, d)
		return
	}
	gain, dgain, dbias = gain[:d], dgain[:d], dbias[:d]
	fd := float64(d)
	i := layerNormBackwardVector(din, dgain, dbias, dout, xhat, rstd, gain, n, d)
	for ; i+2 <= n; i += 2 {
		g0 := dout[i*d : i*d+d][:len(gain)]
		g1 := dout[(i+1)*d : (i+2)*d][:len(gain)]
		h0 := xhat[i*d : i*d+d][:len(gain)]
		h1 := xhat[(i+1)*d : (i+2)*d][:len(gain)]
		var a0, a1, b0, b1 float64
		for j, w := range gain {
			y0, y1, x0, x1 := g0[j], g1[j], h0[j], h1[j]
			dgain[j] = dgain[j] + float64(y0*x0) + float64(y1*x1)
			dbias[j] = dbias[j] + y0 + y1
			y0, y1 = float64(y0*w), float64(y1*w)
			a0 += y0
			a1 += y1
			b0 += float64(y0 * x0)
			b1 += float64(y1 * x1)
		}
		inputGradient(din[i*d:i*d+d], g0, h0, gain, rstd[i], a0/fd, b0/fd)
		inputGradient(din[(i+1)*d:(i+2)*d], g1, h1, gain, rstd[i+1], a1/fd, b1/fd)
	}
	for ; i < n; i++ {
		dy := dout[i*d : i*d+d][:len(gain)]
		xh := xhat[i*d : i*d+d][:len(gain)]
		var meanG, meanGX float64
		for j, g := range dy {
			dgain[j] += float64(g * xh[j])
			dbias[j] += g
			gx := float64(g * gain[j])
			meanG += gx
			meanGX += float64(gx * xh[j])
		}
		inputGradient(din[i*d:i*d+d], dy, xh, gain, rstd[i], meanG/fd, meanGX/fd)
	}
}

// inputGradient adds r·(dy·gain - meanG - xhat·meanGX) to din for one
// row.
func inputGradient(din, dy, xhat, gain []float64, r, meanG, meanGX float64) {
	din, xhat, gain = din[:len(dy)], xhat[:len(dy)], gain[:len(dy)]
	for j, g := range dy {
		din[j] += float64(r * (float64(g*gain[j]) - meanG - float64(xhat[j]*meanGX)))
	}
}
