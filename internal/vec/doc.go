// Package vec holds the small dense-vector kernels that pipelab's
// objectives share, written so their summation order is fixed and results
// are bit-for-bit reproducible, and Features/Kernels, the one switch set of
// pipelab's amd64 assembly kernels (here and in objectives/charlm).
//
// Contract: every kernel gives the same bits as the plain-Go code in every
// build (default, -tags purego, GOAMD64=v3). With -tags purego no assembly
// is compiled and Kernels is all off; plain-Go arithmetic writes
// float64(a*b) + c so that no build fuses a multiply and add.
package vec
