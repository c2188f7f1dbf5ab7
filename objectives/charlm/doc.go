// Package charlm implements a small character-level GPT as an
// objectives.Objective with a held-out validation loss
// (objectives.Validated), with hand-written forward and backward passes in
// float64 (docs/reference.md §1.7, "Small LM").
//
// For S ≥ 3 pipeline stages, stage 0 adds a token embedding and a learned
// position embedding, stages 1..S-2 hold K pre-LayerNorm GPT blocks each
// (Config.BlocksPerStage, default 1; causal multi-head attention with QKV
// and output projections, a 4× GELU MLP, residual connections), and stage
// S-1 is a final LayerNorm and a linear head without bias. The loss is
// the mean next-character cross-entropy in nats. The parameters are one
// flat []float64, stage s owning the contiguous block
// Blocks()[s]:Blocks()[s+1].
//
// The corpus is any UTF-8 text: its characters are runes, and the
// vocabulary is the sorted set of distinct runes in it. The model trains
// on the first nine tenths of its characters and holds out the last tenth
// (TrainingCharacters). Batch b is the b-th run of Batch·SeqLen
// consecutive training characters, cut into Batch rows; batches are
// visited cyclically (b mod Batches). Loss averages a fixed, evenly spread
// set of training batches (EvalBatches), ValidationLoss every held-out
// window of the same shape by default, or a fixed, evenly spread subset
// of them (ValidationBatches).
//
// TinyShakespeare returns the shipped corpus, the default (data/README.md
// gives its provenance); MarkovCorpus generates text from a seeded sparse
// Markov chain whose entropy rate, returned with the text, is the loss
// floor of a perfect predictor; ReadCorpus reads a user's file, and
// OpenCorpus picks one of the three by name. CountModelLosses gives a
// corpus's unigram, bigram and trigram count models' held-out losses
// (counted on the training split, Witten–Bell interpolated), the levels an
// LM's validation loss is read against.
//
// Config.Workers spreads the work of one model over goroutines without
// changing a bit: Loss and ValidationLoss give each worker a Clone and
// its share of the windows, the losses added in window order, and the
// products with a weight matrix (gemmNN) give each worker a run of rows,
// every element formed as on one goroutine.
//
// The dense products keep tiles of sums in registers, each sum formed in
// a fixed order; the GELU's erf is math.Erf, its operations lane by lane;
// the softmaxes and the GELU's derivative take math.Exp.
// On amd64 all three run four to sixteen values at a time with AVX, AVX2
// and AVX-512 where the processor has them (the products' panels and
// LayerNorm for rows of 16 with AVX-512), bit for bit the scalar code, so
// results do not depend on the processor (docs/charlm.md, "Speed at the
// remedies shape").
//
// The attention heads run in three passes over a whole layer (the scores
// of every head packed, one exponential call, the weighted sums), with
// AVX kernels for heads of 4 channels, bit for bit the per-row code they
// replaced.
//
// A Model reuses preallocated workspaces, so Gradient does not allocate
// and a Model must not be used from two goroutines at once; Clone gives
// each goroutine its own. A Model is also objectives.Pipelined: NewPass
// runs one microbatch through the stages one at a time, as a pipeline
// does, each stage's backward reading the weights it is given; a pass
// holds a stage's activations from its forward to its backward only, and
// its BackwardInput passes the input's gradient on without forming the
// block's (objectives.InputPass, for RPD's stages above the one it steps).
package charlm
