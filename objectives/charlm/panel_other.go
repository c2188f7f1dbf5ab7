//go:build !amd64

package charlm

// avx512, the switch of the sixteen-column panels (panel_amd64.go), is
// false where there is no vector kernel.
var avx512 bool
