//go:build !amd64 || purego

package vec

// haveAssembly: this build has no kernels (another architecture, or
// -tags purego); the plain-Go code does all the work.
const haveAssembly = false
