//go:build !amd64 || purego

package charlm

// The scalar side of panel_amd64.go's and rows_amd64.go's kernels.

// addRowsVector and sumVector do nothing where there is no vector
// kernel: addRows and sum do all the work.
func addRowsVector(dst, src []float64, rows, m int) int { return 0 }

func sumVector(dst, x, y []float64) int { return 0 }

// layerNormVector and layerNormBackwardVector do nothing where there is
// no vector kernel: layerNormForward and layerNormBackward do all the
// work.
func layerNormVector(out, xhat, rstd, in, gain, bias []float64, n, d int) int { return 0 }

func layerNormBackwardVector(din, dgain, dbias, dout, xhat, rstd, gain []float64, n, d int) int {
	return 0
}
