// Package vec holds the small dense-vector kernels that pipelab's
// objectives share, written so their summation order is fixed and results
// are bit-for-bit reproducible.
package vec
