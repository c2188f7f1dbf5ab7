package charlm_test

import (
	"fmt"

	"pipelab/objectives/charlm"
)

// Build a two-block model on the default corpus, evaluate it, and take
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
