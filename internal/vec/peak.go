package vec

// PeakLoop names one of the peak loops: unrolled loops of independent
// float64 vector updates that measure the rate at which this core retires
// floating-point work, the ceiling against which objectives/charlm's
// benchmarks state their kernels' GFLOP/s (docs/benchmarks.md).
type PeakLoop int

const (
	// FMA256 is VFMADD231PD on 256-bit registers (AVX2 and FMA).
	FMA256 PeakLoop = iota
	// FMA512 is VFMADD231PD on 512-bit registers (AVX-512).
	FMA512
	// MulAdd512 is VMULPD then VADDPD on 512-bit registers: the unfused
	// arithmetic charlm's panels use so that every build forms the same
	// bits (Features), two instructions for the two operations one FMA
	// does.
	MulAdd512
)

// String is the loop's name in benchmark output.
func (l PeakLoop) String() string {
	switch l {
	case FMA256:
		return "fma256"
	case FMA512:
		return "fma512"
	case MulAdd512:
		return "muladd512"
	}
	return "unknown"
}

// Peak runs loop for iterations rounds of twelve vector updates and
// returns the floating-point operations it did (a fused multiply-add
// counts two), or 0 where the processor or the build (-tags purego) lacks
// the loop's instructions. Divided by the time it took, that is the peak
// rate of the instruction on one core.
func Peak(loop PeakLoop, iterations int) float64 { return peakLoop(loop, iterations) }
