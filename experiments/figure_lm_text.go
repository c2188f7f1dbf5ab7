package experiments

import "fmt"

// figureLMText is the lm figure on the shipped Tiny Shakespeare text:
// PipeDream against LocalSGD (H = 1, 2, 4, 8, 16 in the full size) and
// synchronous training at equal GPU time, by validation loss (the held-out
// tail of the text), with the LM shape and Adam recipe of every LM figure
// (ShakespeareLM). figureLM keeps the Markov corpus, whose floor is known,
// and the paper's model and SGD.
var figureLMText = Figure{
	Name:    "lm",
	Summary: lmTextSummary(),
	// Quick: 4 runs of 174 to 277 microbatches; full: 7 runs of 3,956
	// to 6,328, 150.3 s of CPU measured (its preset swept alone,
	// docs/figures.md, "Cost").
	Seconds: [2]float64{5, 150},
}

// lmTextPipeDreamMicrobatches and lmTextSyncMicrobatches are PipeDream's
// and sync's N at S = 4 in the full lm figure's budget of 227 GPU seconds
// (figures/lm.yaml; tested): sync's is the length at which ShakespeareLM's
// recipe passes 2.2 nats (docs/charlm.md).
const (
	lmTextPipeDreamMicrobatches = 6328
	lmTextSyncMicrobatches      = 4004
)

// lmTextSummary is the lm figure's summary, with the model's size and the
// characters PipeDream trains on.
func lmTextSummary() string {
	lm := ShakespeareLM()
	return fmt.Sprintf("PipeDream, LocalSGD and sync (Adam) training the character-level transformer on Tiny Shakespeare "+
		"(E %d, T %d, batch %d, %d parameters at S = 4; PipeDream sees about %.1fM characters), validation loss against GPU seconds",
		lm.Embed, lm.SeqLen, lm.Batch, lm.Parameters(4), float64(lm.Characters(lmTextPipeDreamMicrobatches))/1e6)
}
