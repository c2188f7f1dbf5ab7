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
	// GPT blocks and the head.
	Stages int
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
	// Seed seeds the initial point (Init).
	Seed uint64
}

// DefaultEvalBatches is the size of Loss's evaluation set when
// Config.EvalBatches is 0.
const DefaultEvalBatches = 8

// DefaultConfig returns the small LM of docs/reference.md §1.7: four stages,
// embedding width 64, 4 heads, sequences of 32 characters, batches of 16
// sequences. (The step 0.0625 given there is the optimizer's, not the
// model's.)
func DefaultConfig() Config {
	return Config{Stages: 4, Embed: 64, Heads: 4, SeqLen: 32, Batch: 16, Seed: 1}
}

// validate reports the first field that is out of range.
func (c Config) validate() error {
	switch {
	case c.Stages < 3:
		return fmt.Errorf("%w: Stages = %d, need at least 3 (embedding, one block, head)", ErrConfig, c.Stages)
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
	}
	return nil
}
