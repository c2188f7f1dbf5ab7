package experiments

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/objectives/charlm"
	"github.com/pipelab/pipelab/results"
)

// validateCharLM fills charlm's defaults (the shipped corpus, one block
// per middle stage) and checks its keys, then checks every stage count's
// model on the corpus (charlm.Check: its length against the batch shape,
// the model's memory), so that a run that cannot be built is an error
// naming the key before anything runs.
func (s *Spec) validateCharLM(v validator) error {
	markov := s.Corpus == charlm.CorpusMarkov
	switch {
	case s.BlocksPerStage < 1:
		return v.fail(fmt.Sprintf("must be at least 1, got %d", s.BlocksPerStage), "blocks_per_stage")
	case s.Embed < 0 || s.Embed%charlm.DefaultConfig().Heads != 0:
		return v.fail(fmt.Sprintf("must be a positive multiple of the %d heads, got %d", charlm.DefaultConfig().Heads, s.Embed), "embed")
	case s.SeqLen < 0:
		return v.fail(fmt.Sprintf("must be at least 1, got %d", s.SeqLen), "seq_len")
	case markov && s.N < 1:
		return v.fail("the markov corpus needs n, its length in training characters", "n")
	case !markov && s.N != 0 && len(s.Objectives) == 1:
		return v.fail(fmt.Sprintf("n sizes the markov corpus only; corpus %s has its own length", s.Corpus), "n")
	case s.Batch < 1:
		return nil // reported with the batch key
	}
	// The markov text's length, all Check reads of it, does not depend on
	// the seed.
	text, err := charlm.OpenCorpus(s.Corpus, 0, s.N)
	if err != nil {
		return v.fail(err.Error(), "corpus")
	}
	for j, st := range s.Stages {
		if st < 3 {
			continue // reported with the stages key
		}
		cfg := LMConfig(s.Corpus, s.Embed, s.SeqLen)
		cfg.Stages, cfg.BlocksPerStage, cfg.Batch = st, s.BlocksPerStage, s.Batch
		err := charlm.Check(cfg, text)
		switch {
		case errors.Is(err, charlm.ErrCorpus) && markov:
			return v.fail(err.Error(), "n")
		case errors.Is(err, charlm.ErrCorpus):
			return v.fail(err.Error(), "corpus")
		case err != nil:
			return v.fail(err.Error(), "stages", j)
		}
	}
	return nil
}

// refuseCharLMKeys refuses charlm's keys in a spec without charlm, where
// they would be ignored.
func (s *Spec) refuseCharLMKeys(v validator) error {
	if slices.ContainsFunc(s.Objectives, func(o string) bool { return objectiveOf(o).LM }) {
		return nil
	}
	if s.Corpus != "" {
		return v.fail("applies to the charlm objective only", "corpus")
	}
	if s.BlocksPerStage != 0 {
		return v.fail("applies to the charlm objective only", "blocks_per_stage")
	}
	if s.Embed != 0 {
		return v.fail("applies to the charlm objective only", "embed")
	}
	if s.SeqLen != 0 {
		return v.fail("applies to the charlm objective only", "seq_len")
	}
	return nil
}

// buildCharLM makes the LM of the run's corpus (lmConfig) with the run's
// stages, blocks per stage and batch on that corpus; the markov corpus is
// drawn from the data seed with n training characters (its entropy floor
// is not recorded).
func buildCharLM(r Run) (objectives.Objective, error) {
	text, err := charlm.OpenCorpus(r.Corpus, r.DataSeed, r.N)
	if err != nil {
		return nil, err
	}
	cfg := LMConfig(r.Corpus, r.Embed, r.SeqLen)
	cfg.Stages, cfg.BlocksPerStage, cfg.Batch, cfg.Seed = r.Stages, r.BlocksPerStage, r.Batch, r.DataSeed
	cfg.ValidationBatches = cmp.Or(r.ValidationWindows, LMValidationWindows)
	cfg.Workers = r.Workers
	return charlm.New(cfg, text)
}

// LMConfig is the corpus's LM with the spec's embedding width and context
// length where they are set (0: the corpus's default; pipelab train sets
// its own, E 64 and T 32 on real text), the one choice of the LM's shape
// that sweeps and pipelab train share: on the markov corpus the paper's small LM
// (charlm.DefaultConfig), whose figure reproduces the paper's settings;
// on the shipped text and on a user's file charlm.ShakespeareConfig, the
// LM shape of every figure on real text (ShakespeareLM), which trains past
// the text's unigram entropy by a wide margin (docs/charlm.md).
func LMConfig(corpus string, embed, seqLen int) charlm.Config {
	cfg := charlm.ShakespeareConfig()
	if corpus == charlm.CorpusMarkov {
		cfg = charlm.DefaultConfig()
	}
	if embed > 0 {
		cfg.Embed = embed
	}
	if seqLen > 0 {
		cfg.SeqLen = seqLen
	}
	return cfg
}

// charLMName adds charlm's keys to a run's canonical name. Runs on the
// markov corpus with one block per stage and the paper's shape keep the
// names (and so the ids and record files) they had before these keys
// existed. On any other corpus the name states the model's width and
// context as built (lmConfig), so that a run whose spec leaves them to
// the default never takes the name of a run of the shape the default was
// before ShakespeareConfig.
func (r Run) charLMName(kv func(k, v string)) {
	markov := r.Corpus == charlm.CorpusMarkov
	if !markov {
		kv("corpus", r.Corpus)
	}
	if r.BlocksPerStage > 1 {
		kv("blocks_per_stage", strconv.Itoa(r.BlocksPerStage))
	}
	cfg := LMConfig(r.Corpus, r.Embed, r.SeqLen)
	if r.Embed > 0 || !markov {
		kv("embed", strconv.Itoa(cfg.Embed))
	}
	if r.SeqLen > 0 || !markov {
		kv("seq_len", strconv.Itoa(cfg.SeqLen))
	}
}

// LMShape is the character LM on the shipped text as the figures train
// it: the model's shape (charlm.ShakespeareConfig) and synchronous Adam's
// recipe, which ends below 2.2 nats of validation loss at S = 4 in
// Microbatches microbatches (docs/charlm.md, "A model that uses its
// context"). Every LM figure's preset file on the real text writes its
// fields, so that they train one model (TestLMFiguresTrainShakespeareLM).
type LMShape struct {
	// Embed, SeqLen, Batch and BlocksPerStage are the spec keys embed,
	// seq_len, batch_size and blocks_per_stage.
	Embed, SeqLen, Batch, BlocksPerStage int
	// Optimizer is the recipe's optimizer: Adam with a cosine schedule
	// after a linear warm-up.
	Optimizer OptimizerSpec
	// Step is the recipe's step size at S = 4 (sync averages S gradients
	// per update).
	Step float64
	// TotalMicrobatches is the run length at which synchronous Adam at S = 4
	// ends below 2.2 nats.
	TotalMicrobatches int
}

// ShakespeareLM returns the LM shape every LM figure on the shipped text
// uses (docs/charlm.md).
func ShakespeareLM() LMShape {
	c := charlm.ShakespeareConfig()
	return LMShape{Embed: c.Embed, SeqLen: c.SeqLen, Batch: c.Batch, BlocksPerStage: c.BlocksPerStage,
		Optimizer: OptimizerSpec{Name: "adam", LRSchedule: "cosine", Warmup: 20},
		Step:      0.0078125, TotalMicrobatches: 4000}
}

// Characters is the number of training characters n microbatches read
// (tokens seen): n·Batch·SeqLen.
func (l LMShape) Characters(microbatches int) int { return microbatches * l.Batch * l.SeqLen }

// Parameters is the model's parameter count on the shipped text's 65
// characters with S stages (charlm.Config.Parameters): K·(S-2) blocks.
func (l LMShape) Parameters(stages int) int {
	c := charlm.Config{Stages: stages, BlocksPerStage: l.BlocksPerStage, Embed: l.Embed, SeqLen: l.SeqLen}
	return c.Parameters(shakespeareVocabulary)
}

// shakespeareVocabulary is the number of distinct characters of the
// shipped text (docs/charlm.md; tested against charlm.Vocabulary).
const shakespeareVocabulary = 65

// lmTitle describes the LM a figure's runs train, for their plots' titles
// (results.WithModel): width, context, the parameter count at each stage
// count run and the training characters the runs saw, from the figure
// spec named experiment (the runs table records neither E nor T). It is
// empty for runs of another objective, on another corpus than the shipped
// text, or of a spec that is no figure's.
func lmTitle(experiment string, runs []results.Run) string {
	if len(runs) == 0 || !objectiveOf(runs[0].Objective).LM {
		return ""
	}
	spec := figureSpec(experiment)
	if spec == nil || cmp.Or(spec.Corpus, charlm.CorpusTinyShakespeare) != charlm.CorpusTinyShakespeare {
		return ""
	}
	cfg := LMConfig(spec.Corpus, spec.Embed, spec.SeqLen)
	cfg.BlocksPerStage = max(spec.BlocksPerStage, 1)
	var params []string
	for _, s := range slices.Sorted(slices.Values(distinctStages(runs))) {
		cfg.Stages = int(s)
		params = append(params, groupDigits(cfg.Parameters(shakespeareVocabulary)))
	}
	lo, hi := math.MaxInt, 0
	for _, r := range runs {
		c := int(r.TotalMicrobatches) * int(r.BatchSize) * cfg.SeqLen
		lo, hi = min(lo, c), max(hi, c)
	}
	chars := fmt.Sprintf("%.2f", float64(lo)/1e6)
	if hi != lo {
		chars += fmt.Sprintf("–%.2f", float64(hi)/1e6)
	}
	return fmt.Sprintf("E %d, T %d, %s params, %sM chars seen", cfg.Embed, cfg.SeqLen, strings.Join(params, "/"), chars)
}

// figureSpec returns the figure spec named name (either size: a figure's
// specs keep their names and models across sizes), or nil (a preset file
// that does not parse has no spec to name; TestPresetFiles). The specs are
// read once (figureSpecs), as plot titles ask for them run after run; the
// caller must not change the spec.
func figureSpec(name string) *Spec { return figureSpecs()[name] }

// figureSpecs maps each preset spec's name to its first spec in the order
// of Figures, quick size first: a deterministic function of the embedded
// files, memoized like presetClocks.
var figureSpecs = sync.OnceValue(func() map[string]*Spec {
	out := map[string]*Spec{}
	for _, f := range Figures() {
		for _, quick := range []bool{true, false} {
			specs, err := f.Presets(quick)
			if err != nil {
				continue
			}
			for _, s := range specs {
				if _, ok := out[s.Name]; !ok {
					out[s.Name] = s
				}
			}
		}
	}
	return out
})

// groupDigits writes n with commas between groups of three digits.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
