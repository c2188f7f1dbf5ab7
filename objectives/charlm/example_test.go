package charlm_test

import (
	"fmt"

	"github.com/pipelab/pipelab/objectives/charlm"
)

// Build a two-block model on the Markov corpus, evaluate it, and take
// one plain SGD step on batch 0.
func Example() {
	text, floor := charlm.MarkovCorpus(1, 10_000)
	cfg := charlm.Config{Stages: 4, Embed: 16, Heads: 2, SeqLen: 8, Batch: 4, Seed: 1}
	m, err := charlm.New(cfg, text)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("vocabulary %d characters, %d parameters in stages %v\n", len(m.Vocabulary()), m.Dim(), m.Blocks())
	fmt.Printf("entropy-rate floor %.3f nats\n", floor)

	x := m.Init()
	fmt.Printf("loss at Init %.3f nats (log 24 = 3.178)\n", m.Loss(x))
	before := m.BatchLoss(x, 0)
	g := make([]float64, m.Dim())
	m.Gradient(g, x, 0, nil)
	const step = 0.0625
	for i := range x {
		x[i] -= step * g[i]
	}
	fmt.Printf("batch 0 loss lower after the step: %v\n", m.BatchLoss(x, 0) < before)
	// Output:
	// vocabulary 24 characters, 7488 parameters in stages [0 512 3792 7072 7488]
	// entropy-rate floor 0.860 nats
	// loss at Init 3.180 nats (log 24 = 3.178)
	// batch 0 loss lower after the step: true
}

// Build a model with two blocks on its one middle stage on the shipped
// corpus (OpenCorpus with the name "tinyshakespeare" does the same) and
// evaluate it on the held-out last tenth of the text.
func ExampleTinyShakespeare() {
	text := charlm.TinyShakespeare()
	cfg := charlm.Config{Stages: 3, BlocksPerStage: 2, Embed: 16, Heads: 2, SeqLen: 16, Batch: 8, Seed: 1}
	m, err := charlm.New(cfg, text)
	if err != nil {
		fmt.Println(err)
		return
	}
	train, heldOut := m.Characters()
	fmt.Printf("%d characters: %d to train on, %d held out\n", len(text), train, heldOut)
	// Stages: (65 + 16)·16 = 1296 embedding parameters, 2·(12·16² + 13·16)
	// = 6560 in the two blocks, 2·16 + 16·65 = 1072 in the head; the
	// held-out text fills ⌊111539/128⌋ = 871 windows of 8·16 characters,
	// all of which ValidationLoss reads by default.
	fmt.Printf("vocabulary %d characters, stages %v\n", len(m.Vocabulary()), m.Blocks())
	fmt.Printf("validation windows %d\n", len(m.ValidationBatches()))
	fmt.Printf("validation loss at Init %.3f nats (log 65 = 4.174)\n", m.ValidationLoss(m.Init()))
	// Output:
	// 1115394 characters: 1003854 to train on, 111540 held out
	// vocabulary 65 characters, stages [0 1296 7856 8928]
	// validation windows 871
	// validation loss at Init 4.176 nats (log 65 = 4.174)
}
