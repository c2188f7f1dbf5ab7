// Package charlm implements a small character-level GPT as an
// objectives.Objective, with hand-written forward and backward passes in
// float64 (docs/reference.md §1.7, "Small LM").
//
// For S ≥ 3 pipeline stages, stage 0 adds a token embedding and a learned
// position embedding, stages 1..S-2 are one pre-LayerNorm GPT block each
// (causal multi-head attention with QKV and output projections, a 4× GELU
// MLP, residual connections), and stage S-1 is a final LayerNorm and a
// linear head without bias. The loss is the mean next-character
// cross-entropy in nats. The parameters are one flat []float64, stage s
// owning the contiguous block Blocks()[s]:Blocks()[s+1].
//
// The corpus is any UTF-8 text: its characters are runes, and the
// vocabulary is the sorted set of distinct runes in it. Batch b is the
// b-th run of Batch·SeqLen consecutive characters, cut into Batch rows;
// batches are visited cyclically (b mod Batches). Loss averages a fixed,
// evenly spread evaluation set of batches (EvalBatches).
//
// DefaultCorpus generates text from a seeded sparse Markov chain whose
// entropy rate, returned with the text, is the loss floor of a perfect
// predictor.
//
// A Model reuses preallocated workspaces, so Gradient does not allocate
// and a Model must not be used from two goroutines at once; Clone gives
// each goroutine its own.
package charlm
