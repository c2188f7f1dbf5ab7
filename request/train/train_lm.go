package train

import (
	"errors"
	"flag"
	"fmt"
	"github.com/pipelab/pipelab/request"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/objectives/charlm"
	"github.com/pipelab/pipelab/optim"
)

// The character LM's defaults in "pipelab train" (docs/charlm.md): with
// them, sync with --optimizer adam on the shipped corpus with S = 4 (E 64,
// T 32, 110,464 parameters) ends at 1.882 nats of validation loss on the
// whole held-out split, below the text's trigram count model (2.049), in
// about 112 s of one core.
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
	// nor --time-budget is given: 5,600 microbatches of 16 sequences of
	// 32 characters, 2.87M training characters.
	lmMicrobatches = 5600
	// lmAdamStepSize, lmAdamBeta2 and lmSyncMicrobatches are Adam's recipe
	// at train's shape (docs/charlm.md, "pipelab train on the shipped
	// corpus"): step 0.0035 with the cosine after 20 updates of warm-up,
	// β2 0.99 (nanoGPT's for its character model: few tokens per
	// update), and sync updating after every microbatch, not S: at the
	// same characters, more updates of fewer sequences trained further.
	lmAdamStepSize     = 0.0035
	lmAdamBeta2        = 0.99
	lmSyncMicrobatches = 1
	// lmEmbed and lmSeqLen are the default shape on the shipped text and
	// on a user's file: embedding width 64 and context 32 (110,464
	// parameters at S = 4), the shape that reaches nanoGPT's CPU level
	// in about two minutes of one core (docs/charlm.md).
	lmEmbed, lmSeqLen = 64, 32
	// lmRecordMicrobatches is the default logging interval in
	// microbatches (S block updates each): a record costs the forward
	// passes of Loss (8) and of ValidationLoss over the whole held-out
	// split (217 windows at train's shape, about 1.3 s of CPU), so the
	// default run keeps 3 records.
	lmRecordMicrobatches = 2800
)

// lmFlags are the character LM's own flags of "pipelab train".
type lmFlags struct {
	corpus         string
	blocksPerStage int
	// embed and seqLen are the model's width and context (the spec keys
	// embed and seq_len): lmEmbed and lmSeqLen, or 0 on the markov corpus
	// (its DefaultConfig). No flag sets them: a sweep spec's keys do.
	embed, seqLen int
}

func (f *lmFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.corpus, "corpus", charlm.CorpusTinyShakespeare,
		"charlm corpus: tinyshakespeare (shipped), markov (generated, --n characters) or a UTF-8 text FILE")
	request.MarkFiles(fs, request.ReadsFile, []string{charlm.CorpusTinyShakespeare, charlm.CorpusMarkov}, "corpus")
	fs.IntVar(&f.blocksPerStage, "blocks-per-stage", 1, "charlm GPT blocks K on each middle stage")
}

// checkLM refuses the LM's flags with another objective, fills the LM's
// defaults, and builds the model, so that an unusable corpus file is
// reported, naming it, before anything runs.
func (f *trainFlags) checkLM() error {
	if !f.objectiveDesc().LM {
		if f.set["corpus"] || f.set["blocks-per-stage"] {
			return errors.New("--corpus and --blocks-per-stage apply to charlm only")
		}
		return nil
	}
	switch {
	case f.stages < 3:
		return fmt.Errorf("--stages must be at least 3 for charlm (embedding, blocks, head), got %d", f.stages)
	case f.lm.blocksPerStage < 1:
		return request.AtLeast("blocks-per-stage", f.lm.blocksPerStage, 1)
	case f.set["n"] && f.lm.corpus != charlm.CorpusMarkov:
		return fmt.Errorf("--n sizes the markov corpus only; --corpus %s has its own length", f.lm.corpus)
	}
	if f.lm.corpus != charlm.CorpusMarkov {
		f.lm.embed, f.lm.seqLen = lmEmbed, lmSeqLen
	}
	recipe := experiments.ShakespeareLM()
	if !f.set["step-size"] {
		f.stepSize = lmStepSize
		switch f.optimizer {
		case "adam", "adamw":
			// 0.0625 is far past Adam's stable range (docs/charlm.md);
			// the markov corpus's paper shape keeps ShakespeareLM's
			// step.
			f.stepSize = recipe.Step
			if f.lm.corpus != charlm.CorpusMarkov {
				f.stepSize = lmAdamStepSize
			}
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
	if f.lm.corpus != charlm.CorpusMarkov && (f.optimizer == "adam" || f.optimizer == "adamw") && !f.set["beta2"] {
		f.beta2 = lmAdamBeta2
	}
	if f.lm.corpus != charlm.CorpusMarkov && f.methodDesc().Replay == optim.ReplayFlush && !f.set["microbatches"] {
		f.microbatches = lmSyncMicrobatches
	}
	if !f.set["total-microbatches"] && !f.set["time-budget"] {
		f.totalMicrobatches, f.set["total-microbatches"] = lmMicrobatches, true
	}
	if !f.set["log-every"] && !f.set["log-points"] {
		f.logEvery = lmRecordMicrobatches * f.stages
	}
	return nil
}
