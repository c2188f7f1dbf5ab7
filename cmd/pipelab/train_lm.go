package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/objectives/charlm"
)

// The character LM's defaults in "pipelab train" (docs/charlm.md): with
// them, sync with --optimizer adam on the shipped corpus with S = 4
// (charlm.ShakespeareConfig's shape) ends at 2.03 nats of validation
// loss, well below 2.2 and the text's unigram entropy 3.3128, in about
// 25 s of one core.
const (
	// lmStepSize is the step size of docs/reference.md §1.7, for the
	// SGD family.
	lmStepSize = 0.0625
	// lmMuonStepSize is Muon's: torch.optim.Muon's default learning rate,
	// AdamW's 1e-3 (nanoGPT's for its Shakespeare character model,
	// config/train_shakespeare_char.py); its AdamW part needs AdamW's.
	lmMuonStepSize = 1e-3
	// lmLionStepSize is Lion's: lion-pytorch's default learning rate
	// (1e-4; its authors advise 3-10 times below AdamW's).
	lmLionStepSize = 1e-4
	// lmMicrobatches is the run length when neither --total-microbatches
	// nor --time-budget is given: twice the 4,000 at which ShakespeareLM's
	// recipe passes 2.2 nats (2.05M training characters).
	lmMicrobatches = 8000
	// lmRecordMicrobatches is the default logging interval in
	// microbatches (S block updates each): a record costs the 16 forward
	// passes of Loss and ValidationLoss, about 6 gradients; 20 records.
	lmRecordMicrobatches = 400
)

// lmFlags are the character LM's own flags of "pipelab train".
type lmFlags struct {
	corpus         string
	blocksPerStage int
}

func (f *lmFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.corpus, "corpus", charlm.CorpusTinyShakespeare,
		"charlm corpus: tinyshakespeare (shipped), markov (generated, --n characters) or a UTF-8 text FILE")
	markFiles(fs, readsFile, []string{charlm.CorpusTinyShakespeare, charlm.CorpusMarkov}, "corpus")
	fs.IntVar(&f.blocksPerStage, "blocks-per-stage", 1, "charlm GPT blocks K on each middle stage")
}

// checkLM refuses the LM's flags with another objective, fills the LM's
// defaults, and builds the model, so that an unusable corpus file is
// reported, naming it, before anything runs.
func (f *trainFlags) checkLM() error {
	if f.objective != "charlm" {
		if f.set["corpus"] || f.set["blocks-per-stage"] {
			return errors.New("--corpus and --blocks-per-stage apply to charlm only")
		}
		return nil
	}
	switch {
	case f.stages < 3:
		return fmt.Errorf("--stages must be at least 3 for charlm (embedding, blocks, head), got %d", f.stages)
	case f.lm.blocksPerStage < 1:
		return atLeast("blocks-per-stage", f.lm.blocksPerStage, 1)
	case f.set["n"] && f.lm.corpus != charlm.CorpusMarkov:
		return fmt.Errorf("--n sizes the markov corpus only; --corpus %s has its own length", f.lm.corpus)
	}
	recipe := experiments.ShakespeareLM()
	if !f.set["step-size"] {
		f.stepSize = lmStepSize
		switch f.optimizer {
		case "adam", "adamw":
			// ShakespeareLM's recipe: 0.0625 is far past Adam's stable
			// range (docs/charlm.md).
			f.stepSize = recipe.Step
		case "muon":
			f.stepSize = lmMuonStepSize
		case "lion":
			f.stepSize = lmLionStepSize
		}
	}
	if (f.optimizer == "adam" || f.optimizer == "adamw") && !f.set["lr-schedule"] && !f.set["warmup"] {
		// The rest of the recipe: its cosine anneals the last updates'
		// noise out of the final loss (docs/charlm.md).
		f.lrSchedule, f.warmup = recipe.Optimizer.LRSchedule, recipe.Optimizer.Warmup
	}
	if !f.set["total-microbatches"] && !f.set["time-budget"] {
		f.totalMicrobatches, f.set["total-microbatches"] = lmMicrobatches, true
	}
	if !f.set["log-every"] && !f.set["log-points"] {
		f.logEvery = lmRecordMicrobatches * f.stages
	}
	return nil
}
