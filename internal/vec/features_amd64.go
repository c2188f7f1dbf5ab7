//go:build !purego

package vec

// haveAssembly: this build compiles the amd64 kernels.
const haveAssembly = true
