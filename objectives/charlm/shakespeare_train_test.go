package charlm

import "testing"

// TestSGDOnTinyShakespeareBeatsUnigram trains a reduced model (S = 3: one
// GPT block of width 16, 2 heads, sequences of 16, batches of 8) with
// plain SGD, batches in order, on the shipped corpus, and checks that the
// validation loss on the held-out tenth ends below the unigram entropy of
// the text, computed here from its character counts (3.3128 nats). A model
// below it has learnt more than each character's frequency: context.
func TestSGDOnTinyShakespeareBeatsUnigram(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine, nothing to race; ten times slower under -race")
	}
	text := TinyShakespeare()
	unigram := UnigramEntropy(text)
	m, err := New(Config{Stages: 3, Embed: 16, Heads: 2, SeqLen: 16, Batch: 8, Seed: 1}, text)
	if err != nil {
		t.Fatal(err)
	}
	x := m.Init()
	g := make([]float64, m.Dim())
	const steps, step = 400, 0.25
	start := m.ValidationLoss(x)
	for k := range steps {
		m.Gradient(g, x, k, nil)
		for i := range x {
			x[i] -= step * g[i]
		}
	}
	got := m.ValidationLoss(x)
	t.Logf("validation loss %.4f at Init, %.4f after %d steps; unigram entropy %.4f", start, got, steps, unigram)
	if got >= unigram {
		t.Errorf("validation loss %.4f after %d steps, want below the unigram entropy %.4f", got, steps, unigram)
	}
}
