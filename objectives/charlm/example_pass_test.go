package charlm_test

import (
	"fmt"
	"slices"

	"github.com/pipelab/pipelab/objectives/charlm"
)

// Run one microbatch through the stages one at a time, as a pipeline
// does: with the forward's blocks in every backward the pass gives
// Gradient bit for bit; a backward may read other weights instead.
func ExampleModel_NewPass() {
	text, _ := charlm.MarkovCorpus(1, 10_000)
	m, err := charlm.New(charlm.Config{Stages: 4, Embed: 8, Heads: 2, SeqLen: 8, Batch: 2, Seed: 1}, text)
	if err != nil {
		fmt.Println(err)
		return
	}
	x, b := m.Init(), m.Blocks()
	block := func(v []float64, s int) []float64 { return v[b[s]:b[s+1]] }
	p := m.NewPass()
	for s := range 4 {
		p.Forward(block(x, s), 0, s)
	}
	g := make([]float64, m.Dim())
	for s := 3; s >= 0; s-- {
		p.Backward(block(g, s), block(x, s), s)
	}
	want := make([]float64, m.Dim())
	m.Gradient(want, x, 0, nil)
	fmt.Println("pass = Gradient:", slices.Equal(g, want))
	fmt.Printf("one pass in flight holds %d bytes\n", m.PassBytes())
	// Output:
	// pass = Gradient: true
	// one pass in flight holds 61056 bytes
}
