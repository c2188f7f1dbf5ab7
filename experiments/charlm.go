package experiments

import (
	"fmt"
	"slices"
	"strconv"

	"pipelab/objectives"
	"pipelab/objectives/charlm"
)

// validateCharLM fills charlm's defaults (the shipped corpus, one block
// per middle stage) and checks its keys; a corpus file is read and
// measured against the batch shape now, so that a file the runs cannot
// use is an error naming the key before anything runs.
func (s *Spec) validateCharLM(v validator) error {
	if s.Corpus == "" {
		s.Corpus = charlm.CorpusTinyShakespeare
	}
	if s.BlocksPerStage == 0 {
		s.BlocksPerStage = 1
	}
	switch {
	case s.BlocksPerStage < 1:
		return v.fail(fmt.Sprintf("must be at least 1, got %d", s.BlocksPerStage), "blocks_per_stage")
	case s.Corpus == charlm.CorpusMarkov && s.N < 1:
		return v.fail("the markov corpus needs n, its length in training characters", "n")
	case s.Corpus != charlm.CorpusMarkov && s.N != 0 && len(s.Objectives) == 1:
		return v.fail(fmt.Sprintf("n sizes the markov corpus only; corpus %s has its own length", s.Corpus), "n")
	case s.Corpus == charlm.CorpusMarkov || s.Corpus == charlm.CorpusTinyShakespeare || s.Batch < 1:
		return nil
	}
	text, err := charlm.ReadCorpus(s.Corpus)
	if err == nil {
		cfg := charlm.DefaultConfig()
		cfg.Stages, cfg.Batch = 3, s.Batch
		_, err = charlm.New(cfg, text)
	}
	if err != nil {
		return v.fail(err.Error(), "corpus")
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
	cfg := charlm.DefaultConfig()
	cfg.Stages, cfg.BlocksPerStage, cfg.Batch, cfg.Seed = r.Stages, r.BlocksPerStage, r.Batch, r.DataSeed
	return charlm.New(cfg, text)
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
}
