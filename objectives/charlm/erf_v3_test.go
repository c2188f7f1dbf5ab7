//go:build amd64.v3

package charlm

// mathErfFused: this build (GOAMD64=v3) compiles math.Erf with fused
// multiply-adds, so it is not erf's reference here; TestErfIsMathErf pins
// erf to math.Erf in the other builds and the digest test pins this build
// to them.
const mathErfFused = true
