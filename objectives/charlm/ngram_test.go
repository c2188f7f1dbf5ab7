package charlm

import (
	"errors"
	"math"
	"testing"
)

// TestCountModelLossesMatchPython checks the shipped text's count models
// against testdata/count_models.py, an independent computation of the same
// definitions with Python's collections.Counter (its output, 2026-12-06):
// unigram 3.3473053882988504, bigram 2.4857574578002715, trigram
// 2.0492127688041695 over 111,538 held-out characters. The sums are
// formed in another order, so they agree to rounding, not to the bit.
func TestCountModelLossesMatchPython(t *testing.T) {
	got := TinyShakespeareCountModels()
	want := CountModels{Unigram: 3.3473053882988504, Bigram: 2.4857574578002715, Trigram: 2.0492127688041695, Predicted: 111538}
	if got.Predicted != want.Predicted {
		t.Errorf("predicted %d held-out characters, want %d", got.Predicted, want.Predicted)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"unigram", got.Unigram, want.Unigram}, {"bigram", got.Bigram, want.Bigram}, {"trigram", got.Trigram, want.Trigram}} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s: %.12f nats, want %.12f (testdata/count_models.py)", c.name, c.got, c.want)
		}
	}
}

// TestCountModelsReachTheMarkovFloor checks the count models on the
// Markov corpus against its entropy rate, a closed form (MarkovCorpus):
// the chain is first order, so the bigram model estimates the true
// transition probabilities and its held-out loss approaches the floor,
// the trigram model can do no better, and the unigram model, which knows
// no context, does far worse. With 2^20 training characters the
// estimate's own error is about 0.7/√116,500 ≈ 0.002 nats (one standard
// error over the held-out characters); the bound is 0.01.
func TestCountModelsReachTheMarkovFloor(t *testing.T) {
	text, floor := MarkovCorpus(1, 1<<20)
	c, err := CountModelLosses(text)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.Bigram-floor) > 0.01 {
		t.Errorf("bigram %.5f nats, floor %.5f: differ by more than 0.01", c.Bigram, floor)
	}
	if math.Abs(c.Trigram-floor) > 0.01 {
		t.Errorf("trigram %.5f nats, floor %.5f: differ by more than 0.01", c.Trigram, floor)
	}
	if c.Unigram < floor+0.5 {
		t.Errorf("unigram %.5f nats, want well above the floor %.5f", c.Unigram, floor)
	}
}

// TestCountModelsRefuseShortText: a text whose held-out tenth has fewer
// than three characters has no trigram to predict.
func TestCountModelsRefuseShortText(t *testing.T) {
	if _, err := CountModelLosses([]byte("abcdefghijklmnopqrst")); !errors.Is(err, ErrCorpus) {
		t.Errorf("20 characters: error %v, want ErrCorpus", err)
	}
	if _, err := CountModelLosses([]byte{'a', 0xff, 'b'}); !errors.Is(err, ErrCorpus) {
		t.Errorf("invalid UTF-8: error %v, want ErrCorpus", err)
	}
}
