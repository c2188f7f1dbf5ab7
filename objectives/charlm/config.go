package charlm

import (
	"errors"
	"fmt"
)

// ErrConfig is wrapped by every error New returns for an invalid Config.
var ErrConfig = errors.New("charlm: invalid config")

// Config sizes the model and its batches.
type Config struct {
	// Stages is the number of pipeline stages S ≥ 3: the embedding, S-2
	// stages of GPT blocks and the head.
	Stages int
	// BlocksPerStage is the number of GPT blocks K each of the S-2 middle
	// stages holds, K·(S-2) in all; 0 means 1.
	BlocksPerStage int
	// Embed is the width of the residual stream; Heads must divide it.
	Embed int
	// Heads is the number of attention heads per block.
	Heads int
	// SeqLen is the context length: positions per training sequence.
	SeqLen int
	// Batch is the number of sequences per batch.
	Batch int
	// EvalBatches is how many batches Loss averages over, spread evenly
	// over the corpus; 0 means DefaultEvalBatches, and it is capped at
	// the number of batches.
	EvalBatches int
	// ValidationBatches is how many windows of Batch sequences of the
	// held-out text ValidationLoss averages over, spread evenly over it;
	// 0 means every window (the whole held-out split but the last
	// Batch·SeqLen characters at most, too few to fill a window), and it
	// is capped at the number of windows the held-out text holds.
	ValidationBatches int
	// Seed seeds the initial point (Init).
	Seed uint64
	// Workers is how many goroutines Loss and ValidationLoss spread their
	// batches over, each on its own Clone; 0 means 1. The losses are
	// summed in batch order whatever the count, so the result is the
	// same bits (tested). Each worker past the first holds its own
	// workspaces.
	Workers int
}

// DefaultEvalBatches is the size of Loss's evaluation set when
// Config.EvalBatches is 0.
const DefaultEvalBatches = 8

// DefaultConfig returns the small LM of docs/reference.md §1.7: four stages
// with one GPT block on each middle stage, embedding width 64, 4 heads,
// sequences of 32 characters, batches of 16 sequences. (The step 0.0625
// given there is the optimizer's, not the model's.)
func DefaultConfig() Config {
	return Config{Stages: 4, BlocksPerStage: 1, Embed: 64, Heads: 4, SeqLen: 32, Batch: 16, Seed: 1}
}

// ShakespeareConfig returns the LM every LM figure trains on the shipped
// Tiny Shakespeare text, and a spec's default shape there and on a user's
// file (pipelab train's default is wider and longer: E 64, T 32, see
// docs/charlm.md): four stages with one GPT block on each middle stage
// (two in all), embedding width 32, 4 heads, sequences of 16 characters,
// batches of 16 sequences. It has 30,144 parameters at S = 4
// (Parameters, with the text's 65 characters). Of the shapes measured in
// docs/charlm.md ("A model that uses its context") it is the cheapest that
// trains below 2.2 nats of validation loss with synchronous Adam (step
// 2^-7, cosine after 20 updates of warm-up) in about a million training
// characters: 2.122 on the whole held-out split after 4,000 microbatches
// of 256 characters, against the text's unigram entropy of 3.3128.
func ShakespeareConfig() Config {
	return Config{Stages: 4, BlocksPerStage: 1, Embed: 32, Heads: 4, SeqLen: 16, Batch: 16, Seed: 1}
}

// Parameters is the model's parameter count for a vocabulary of vocab
// characters, in closed form (docs/charlm.md's table): (V+T)·E for the
// embeddings, K·(S-2)·(12E² + 13E) for the blocks and 2E + E·V for the
// head. It is the length of Init's vector (tested).
func (c Config) Parameters(vocab int) int {
	e := c.Embed
	return (vocab+c.SeqLen)*e + c.layers()*(12*e*e+13*e) + 2*e + e*vocab
}

// workers is the worker count with the zero value read as 1.
func (c Config) workers() int { return max(c.Workers, 1) }

// blocksPerStage is K with the zero value read as 1.
func (c Config) blocksPerStage() int { return max(c.BlocksPerStage, 1) }

// layers is the number of GPT blocks L = K·(S-2).
func (c Config) layers() int { return c.blocksPerStage() * (c.Stages - 2) }

// validate reports the first field that is out of range.
func (c Config) validate() error {
	switch {
	case c.Stages < 3:
		return fmt.Errorf("%w: Stages = %d, need at least 3 (embedding, one block, head)", ErrConfig, c.Stages)
	case c.BlocksPerStage < 0:
		return fmt.Errorf("%w: BlocksPerStage = %d, need 0 (one block) or more", ErrConfig, c.BlocksPerStage)
	case c.Embed < 1:
		return fmt.Errorf("%w: Embed = %d, need at least 1", ErrConfig, c.Embed)
	case c.Heads < 1:
		return fmt.Errorf("%w: Heads = %d, need at least 1", ErrConfig, c.Heads)
	case c.Embed%c.Heads != 0:
		return fmt.Errorf("%w: Embed = %d is not divisible by Heads = %d", ErrConfig, c.Embed, c.Heads)
	case c.SeqLen < 1:
		return fmt.Errorf("%w: SeqLen = %d, need at least 1", ErrConfig, c.SeqLen)
	case c.Batch < 1:
		return fmt.Errorf("%w: Batch = %d, need at least 1", ErrConfig, c.Batch)
	case c.EvalBatches < 0:
		return fmt.Errorf("%w: EvalBatches = %d, need 0 (default) or more", ErrConfig, c.EvalBatches)
	case c.ValidationBatches < 0:
		return fmt.Errorf("%w: ValidationBatches = %d, need 0 (default) or more", ErrConfig, c.ValidationBatches)
	case c.Workers < 0:
		return fmt.Errorf("%w: Workers = %d, need 0 (one) or more", ErrConfig, c.Workers)
	}
	return nil
}
