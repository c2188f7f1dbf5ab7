//go:build !amd64.v3

package charlm

// mathErfFused: math.Erf is compiled without fused multiply-adds here, so
// it is erf's reference (erf_v3_test.go).
const mathErfFused = false
