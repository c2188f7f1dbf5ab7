package charlm

// layerNormInputGradient is layerNormBackward without the gain's and the
// bias's gradients, for a backward that forms no weight gradients
// (trip.BackwardInput): din's sums are formed as layerNormBackward's row
// by row code forms them, bit for bit (TestBackwardInputPassesTheSameGradient).
func layerNormInputGradient(din, dout, xhat, rstd, gain []float64, n, d int) {
	gain = gain[:d]
	for i := 0; i < n; i++ {
		dy := dout[i*d : i*d+d][:len(gain)]
		xh := xhat[i*d : i*d+d][:len(gain)]
		var meanG, meanGX float64
		for j, g := range dy {
			gx := float64(g * gain[j])
			meanG += gx
			meanGX += float64(gx * xh[j])
		}
		inputGradient(din[i*d:i*d+d], dy, xh, gain, rstd[i], meanG/float64(d), meanGX/float64(d))
	}
}
