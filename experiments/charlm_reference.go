package experiments

import (
	"cmp"

	"github.com/pipelab/pipelab/objectives/charlm"
	"github.com/pipelab/pipelab/results"
)

// lmReferences is the plot option that draws the shipped text's count
// models (charlm.TinyShakespeareCountModels: unigram, bigram and trigram
// held-out losses, counted on the training split) as reference lines on
// an LM experiment's loss plots, so that a curve is read against what one
// or two characters of context give; no option (nil) for runs of another
// objective, or of a spec that is no figure's or trains on another corpus
// (lmTitle's rule: the runs table does not record the corpus).
func lmReferences(experiment string, runs []results.Run) []results.PlotOption {
	if len(runs) == 0 || !objectiveOf(runs[0].Objective).LM {
		return nil
	}
	spec := figureSpec(experiment)
	if spec == nil || cmp.Or(spec.Corpus, charlm.CorpusTinyShakespeare) != charlm.CorpusTinyShakespeare {
		return nil
	}
	c := charlm.TinyShakespeareCountModels()
	return []results.PlotOption{results.WithReferenceLosses(
		results.ReferenceLoss{Label: "unigram count model, held-out", Loss: c.Unigram},
		results.ReferenceLoss{Label: "bigram count model, held-out", Loss: c.Bigram},
		results.ReferenceLoss{Label: "trigram count model, held-out", Loss: c.Trigram})}
}
