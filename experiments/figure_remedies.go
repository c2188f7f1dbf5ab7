package experiments

import "fmt"

// figureRemedies asks which staleness remedy wins in seconds: every
// asynchronous method on the asynchronous replay of 1F1B and ZB-H1 tables,
// against LocalSGD and synchronous SGD, on the character LM (the shipped
// text, validation loss) and on logistic regression, each with momentum
// SGD and with Adam, timed by the GPU model (docs/figures.md, remedies).
var figureRemedies = Figure{
	Name:    "remedies",
	Summary: remediesSummary(),
	// Quick: 59.5 s of CPU at the former LM (docs/figures.md, remedies;
	// the LM's quick runs are fewer now), and 16 dc-a runs more. Full: the
	// logistic part measured at five seeds with the remedies' settings
	// swept, 222 CPU-s for 6125 runs (docs/figures.md, "Issue 40"); the LM
	// part's 60 runs of 4,020–4,796 microbatches at S = 4, 71.1 CPU-s for
	// one step of each method at one seed in a pilot (docs/figures.md,
	// "Cost"), 15 times that: an estimate.
	Seconds: [2]float64{65, 1290},
}

// remediesSummary is the remedies figure's summary, with the LM's size
// and the characters its runs see in the full size.
func remediesSummary() string {
	lm := ShakespeareLM()
	return fmt.Sprintf("staleness remedies against sync in GPU seconds: logistic regression (every remedy, RPD, LocalSGD; "+
		"1F1B and ZB-H1; momentum and Adam) and the LM on the shipped text (sync, pipedream, 2bw, predict on ZB-H1 with Adam; "+
		"E %d, T %d, %d parameters at S = 4, %.2f–%.2fM characters seen), loss against time and time to a target loss",
		lm.Embed, lm.SeqLen, lm.Parameters(4),
		float64(lm.Characters(remedyLMSyncMicrobatches4))/1e6, float64(lm.Characters(remedyLMAsyncMicrobatches4))/1e6)
}

// remedyLMSyncMicrobatches4 and remedyLMAsyncMicrobatches4 are the fewest
// and the most microbatches of the full remedies LM's runs: sync and the
// asynchronous methods at S = 4 in its budget of 172 GPU seconds
// (figures/remedies.yaml; tested).
const (
	remedyLMSyncMicrobatches4  = 4020
	remedyLMAsyncMicrobatches4 = 4796
)
