package experiments

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"pipelab/objectives"
	"pipelab/objectives/charlm"
)

// validateCharLM fills charlm's defaults (the shipped corpus, one block
// per middle stage) and checks its keys, then checks every stage count's
// model on the corpus (charlm.Check: its length against the batch shape,
// the model's memory), so that a run that cannot be built is an error
// naming the key before anything runs.
func (s *Spec) validateCharLM(v validator) error {
	if s.Corpus == "" {
		s.Corpus = charlm.CorpusTinyShakespeare
	}
	if s.BlocksPerStage == 0 {
		s.BlocksPerStage = 1
	}
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
		cfg := lmConfig(s.Embed, s.SeqLen)
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
	if slices.Contains(s.Objectives, "charlm") {
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

// buildCharLM makes the paper's small LM (charlm.DefaultConfig) with the
// run's stages, blocks per stage and batch on the run's corpus; the
// markov corpus is drawn from the data seed with n training characters
// (its entropy floor is not recorded).
func buildCharLM(r Run) (objectives.Objective, error) {
	text, err := charlm.OpenCorpus(r.Corpus, r.DataSeed, r.N)
	if err != nil {
		return nil, err
	}
	cfg := lmConfig(r.Embed, r.SeqLen)
	cfg.Stages, cfg.BlocksPerStage, cfg.Batch, cfg.Seed = r.Stages, r.BlocksPerStage, r.Batch, r.DataSeed
	return charlm.New(cfg, text)
}

// lmConfig is charlm.DefaultConfig with the spec's embedding width and
// context length where they are set.
func lmConfig(embed, seqLen int) charlm.Config {
	cfg := charlm.DefaultConfig()
	if embed > 0 {
		cfg.Embed = embed
	}
	if seqLen > 0 {
		cfg.SeqLen = seqLen
	}
	return cfg
}

// charLMName adds charlm's keys to a run's canonical name. Runs on the
// markov corpus with one block per stage keep the names (and so the ids
// and record files) they had before these keys existed.
func (r Run) charLMName(kv func(k, v string)) {
	if r.Corpus != charlm.CorpusMarkov {
		kv("corpus", r.Corpus)
	}
	if r.BlocksPerStage > 1 {
		kv("blocks_per_stage", strconv.Itoa(r.BlocksPerStage))
	}
	if r.Embed > 0 {
		kv("embed", strconv.Itoa(r.Embed))
	}
	if r.SeqLen > 0 {
		kv("seq_len", strconv.Itoa(r.SeqLen))
	}
}
