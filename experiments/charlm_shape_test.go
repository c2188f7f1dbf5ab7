package experiments

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/objectives/charlm"
	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/results"
)

// ShakespeareLM's recipe, synchronous Adam at S = 4, trains past the
// text's unigram entropy in 200 microbatches (51,200 characters, under a
// second of CPU): its validation loss at the end is below the entropy
// counted from the text, i.e. the model has learnt more than character
// frequencies. (Below 2.2 takes 4,000 microbatches, docs/charlm.md: a
// benchmark-sized run, not a test.)
func TestShakespeareLMTrainsPastTheUnigramEntropy(t *testing.T) {
	lm := ShakespeareLM()
	opt := lm.Optimizer.Settings()
	r := Run{Measure: Convergence, Objective: "charlm", Corpus: charlm.CorpusTinyShakespeare,
		Embed: lm.Embed, SeqLen: lm.SeqLen, Batch: lm.Batch, BlocksPerStage: lm.BlocksPerStage,
		Method: "sync", Family: "1f1b", Stages: 4, Microbatches: 4, Step: lm.Step, Optimizer: opt,
		TotalMicrobatches: 200, LogPoints: 4, Seed: 1, DataSeed: 1}
	var last optim.Record
	r.Record = func(rec optim.Record) error { last = rec; return nil }
	res, err := Train(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	unigram := charlm.UnigramEntropy(charlm.TinyShakespeare())
	t.Logf("validation loss %.4f after %d microbatches (%d updates per stage); unigram entropy %.4f",
		last.ValidationLoss, res.TotalMicrobatches, res.BlockUpdates/4, unigram)
	if last.Updates != res.BlockUpdates {
		t.Fatalf("the last record is at %d block updates, the run made %d", last.Updates, res.BlockUpdates)
	}
	if !(last.ValidationLoss < unigram) {
		t.Errorf("validation loss %.4f after %d microbatches, want below the unigram entropy %.4f", last.ValidationLoss, res.TotalMicrobatches, unigram)
	}
}

// Every figure that trains the LM on the shipped text trains
// ShakespeareLM's model, in both sizes, and its Adam methods take
// ShakespeareLM's recipe; the Markov figure keeps the paper's model.
// There is no exception.
func TestLMFiguresTrainShakespeareLM(t *testing.T) {
	lm := ShakespeareLM()
	found := 0
	for _, f := range Figures() {
		for _, quick := range []bool{true, false} {
			specs, err := f.Presets(quick)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range specs {
				if !slices.Contains(s.Objectives, "charlm") || s.Corpus == charlm.CorpusMarkov {
					continue
				}
				found++
				if s.Embed != lm.Embed || s.SeqLen != lm.SeqLen || s.Batch != lm.Batch || s.BlocksPerStage != lm.BlocksPerStage {
					t.Errorf("%s (quick %v): E %d, T %d, batch %d, K %d; ShakespeareLM is E %d, T %d, batch %d, K %d",
						s.Name, quick, s.Embed, s.SeqLen, s.Batch, s.BlocksPerStage, lm.Embed, lm.SeqLen, lm.Batch, lm.BlocksPerStage)
				}
				for _, m := range s.Methods {
					o, want := m.Optimizer, lm.Optimizer
					if o.Name == want.Name && (o.LRSchedule != want.LRSchedule || o.Warmup != want.Warmup) {
						t.Errorf("%s (quick %v): %s with %s, schedule %q after %d warm-up updates; ShakespeareLM's recipe is %q after %d",
							s.Name, quick, m.Name, o.Name, o.LRSchedule, o.Warmup, want.LRSchedule, want.Warmup)
					}
				}
			}
		}
	}
	if found == 0 {
		t.Error("no figure trains the LM on the shipped text")
	}
}

// The counts the LM figures' comments and summary state: PipeDream's and
// sync's microbatches in the lm figure's budget, and the shipped text's
// vocabulary that LMShape.Parameters assumes.
func TestLMFigureCounts(t *testing.T) {
	s := presetSpec(t, figureLMText, false, "lm-text")
	for _, r := range s.Expand() {
		want := map[string]int{"pipedream": lmTextPipeDreamMicrobatches, "sync": lmTextSyncMicrobatches}[r.Method]
		if want == 0 {
			continue
		}
		p, err := planFor(r)
		if err != nil {
			t.Fatal(err)
		}
		if p.TotalMicrobatches != want {
			t.Errorf("%s runs %d microbatches in the lm figure's %g s, the summary says %d", r.Method, p.TotalMicrobatches, r.Budget, want)
		}
	}
	lo, hi := math.MaxInt, 0
	remedies, err := figureRemedies.Presets(false)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range remedies {
		if !slices.Contains(s.Objectives, "charlm") {
			continue
		}
		for _, r := range s.Expand() {
			p, err := planFor(r)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi = min(lo, p.TotalMicrobatches), max(hi, p.TotalMicrobatches)
		}
	}
	if lo != remedyLMSyncMicrobatches4 || hi != remedyLMAsyncMicrobatches4 {
		t.Errorf("the remedies LM's runs take %d to %d microbatches, its summary says %d to %d", lo, hi, remedyLMSyncMicrobatches4, remedyLMAsyncMicrobatches4)
	}
	m, err := charlm.New(charlm.ShakespeareConfig(), charlm.TinyShakespeare())
	if err != nil {
		t.Fatal(err)
	}
	if v := len(m.Vocabulary()); v != shakespeareVocabulary {
		t.Errorf("the shipped text has %d characters, shakespeareVocabulary says %d", v, shakespeareVocabulary)
	}
	if got, want := ShakespeareLM().Parameters(4), m.Dim(); got != want {
		t.Errorf("ShakespeareLM().Parameters(4) = %d, the model has %d", got, want)
	}
}

// The LM figures' plot titles name the model and the characters seen,
// from the figure spec the rows name: the lm figure's PipeDream and sync
// rows (4,181 and 2,648 microbatches of 16 sequences of 16 characters:
// 1,070,336 and 677,888 characters), the remedies' at S = 4 and 8, the
// staleness-law LM's (through lmNote, which the gap figures' titles use);
// rows of another objective or of no figure's spec get none.
func TestLMTitleNamesModelAndCharacters(t *testing.T) {
	rows := []results.Run{
		{Experiment: "lm-text", Objective: "charlm", Stages: 4, TotalMicrobatches: 4181, BatchSize: 16},
		{Experiment: "lm-text", Objective: "charlm", Stages: 4, TotalMicrobatches: 2648, BatchSize: 16},
	}
	if got, want := lmTitle("lm-text", rows), "E 32, T 16, 30,144 params, 0.68–1.07M chars seen"; got != want {
		t.Errorf("lm-text: %q, want %q", got, want)
	}
	rows = []results.Run{
		{Objective: "charlm", Stages: 8, TotalMicrobatches: 2728, BatchSize: 16},
		{Objective: "charlm", Stages: 4, TotalMicrobatches: 1404, BatchSize: 16},
	}
	// 80,960 at S = 8: six blocks of 12·32² + 13·32 = 12,704 more than
	// S = 4's two, 30,144 + 4·12,704.
	if got, want := lmTitle("remedies-lm-zb-h1", rows), "E 32, T 16, 30,144/80,960 params, 0.36–0.70M chars seen"; got != want {
		t.Errorf("remedies: %q, want %q", got, want)
	}
	// The gap figures' LM (lmNote, their titles): the staleness-law LM at
	// S = 3 and 8, 600 microbatches of 16 × 16 characters (153,600);
	// 17,440 at S = 3, one block of 12,704 fewer than S = 4's 30,144.
	rows = []results.Run{
		{Experiment: "staleness-law-lm", Objective: "charlm", Stages: 8, TotalMicrobatches: 600, BatchSize: 16},
		{Experiment: "staleness-law-lm", Objective: "charlm", Stages: 3, TotalMicrobatches: 600, BatchSize: 16},
		{Experiment: "staleness-law-quadratic", Objective: "quadratic", Stages: 2, TotalMicrobatches: 1000, BatchSize: 25},
	}
	if got, want := lmNote(rows, "staleness-law-lm"), "E 32, T 16, 17,440/80,960 params, 0.15M chars seen"; got != want {
		t.Errorf("staleness-law-lm: %q, want %q", got, want)
	}
	if got := lmTitle("remedies-logistic-1f1b", []results.Run{{Objective: "logistic", Stages: 4}}); got != "" {
		t.Errorf("logistic rows: %q, want none", got)
	}
	if got := lmTitle("my-sweep", rows); got != "" {
		t.Errorf("a spec that is no figure's: %q, want none", got)
	}
}
