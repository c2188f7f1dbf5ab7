package objectives

// Pipelined is an Objective whose batch gradient runs through its blocks
// as a chain of stages, the way a pipeline computes it: stage s's forward
// reads stage s-1's output and block s, and keeps its activations; stage
// s's backward reads the gradient stage s+1's backward passed down, the
// activations its own forward kept, and a block, which need not be the
// one the forward read (a pipeline without weight stashing reads the
// weights current at the backward). With the forward's blocks throughout
// a Pass gives the objective's Gradient bit for bit. The replays of
// package optim use it where a backward reads other weights than its
// forward, at the cost of one forward and one backward per microbatch
// instead of one full gradient per backward.
type Pipelined interface {
	Objective
	// NewPass returns one microbatch's trip through the stages.
	NewPass() Pass
	// PassBytes is the most memory one Pass holds (the activations of
	// every stage, between its last forward and its first backward), for
	// callers that bound how many are in flight. A Pass may hold less
	// before and after: a stage's activations are needed from its forward
	// to its backward only.
	PassBytes() int
}

// InputPass is a Pass whose backward can pass the gradient of a stage's
// input on without forming the block's gradient: a caller that steps one
// block (RPD) needs only that from the stages above it, and saves their
// weight-gradient products.
type InputPass interface {
	Pass
	// BackwardInput runs stage s's backward as Backward does, passing the
	// gradient of the stage's input on to stage s-1 with the same bits,
	// but forms no gradient of block s.
	BackwardInput(xs []float64, s int)
}

// Pass is one microbatch's trip through the stages of a Pipelined
// objective. A trip runs Forward for stages 0, 1, .., S-1 (stage 0
// starting it) and then Backward for stages S-1, .., 0; calls out of that
// order are a programming error and panic. The objective has no gradient
// noise.
type Pass interface {
	// Forward runs stage s of batch b (mod Batches) with block xs.
	Forward(xs []float64, b, s int)
	// Backward writes into g (the length of block s) the gradient of block
	// s with weights xs, through the activations of this trip's forward,
	// and passes the gradient of the stage's input on to stage s-1.
	Backward(g, xs []float64, s int)
}
