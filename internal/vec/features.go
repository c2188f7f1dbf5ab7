package vec

import "golang.org/x/sys/cpu"

// Features switches pipelab's hand-written amd64 kernels (this package's
// blockdots and scaledrows, objectives/charlm's panels, layer norm,
// attention, exp and erf) on and off. Kernels holds the switches every
// kernel reads; it is the only place in pipelab that reads the processor's
// features (cpu.X86), once, at start-up.
//
// The contract: every kernel gives the same bits as the plain-Go code it
// stands for, in every build (default, -tags purego, GOAMD64=v3), so a
// switch changes speed and never a result. Turning a field off, as tests
// and benchmarks do, makes the plain-Go code run instead; turning one on
// where the processor lacks the feature is not allowed. A kernel runs
// where its feature's field is on and its own Disabled field is off, so
// kernels may be turned off one at a time.
type Features struct {
	AVX     bool // blockdots, scaledrows, charlm's eight-column panels and attention heads
	AVX2FMA bool // charlm's exp and erf (math.Exp's FMA path, which math.Exp itself takes then)
	AVX512  bool // charlm's sixteen-column panels and layer norm

	// Disabled turns single kernels off where the fields above would run
	// them, the plain-Go code doing their work with the same bits: the
	// end-to-end benchmarks that decide which kernels pipelab keeps
	// (docs/benchmarks.md, "Which kernels pay") compare each kernel off
	// with all on in one run. Detect leaves every kernel enabled.
	Disabled Disabled
}

// Disabled names pipelab's kernels one by one (Features.Disabled).
// Panels turns all of charlm's panels off; Panels16 leaves their columns
// to the eight-column panels; Panels8x16 leaves the sixteen-column
// panels' rows to the panels of four rows; AddRows leaves the bias
// gradients' sums to the scalar loop.
type Disabled struct {
	BlockDots, ScaledRows                                                 bool // internal/vec
	Panels, Panels16, Panels8x16, AddRows, LayerNorm, Attention, Exp, Erf bool // objectives/charlm
}

// Kernels is the switch set every kernel reads: the processor's features
// in a build with assembly, none with -tags purego or off amd64.
var Kernels = Detect()

// Detect returns the features the kernels may use on this processor in
// this build.
func Detect() Features {
	if !haveAssembly {
		return Features{}
	}
	x := cpu.X86
	return Features{
		AVX:     x.HasAVX,
		AVX2FMA: x.HasAVX && x.HasAVX2 && x.HasFMA,
		AVX512:  x.HasAVX && x.HasAVX512F,
	}
}
