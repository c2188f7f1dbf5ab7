//go:build !amd64 || purego

package vec

func scaledRowsVector(g, rows, r []float64) bool { return false }
