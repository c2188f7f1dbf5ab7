package optim

import (
	"math"
	"strconv"
	"testing"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/objectives/charlm"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// pd-nostash equals pd on the quadratics: the least-squares block
// gradient X_{b,s}ᵀr/B reads the stage's own weights only through the
// residual r, which the forwards fixed (docs/reference.md §1.1), so
// reading the block at the backward's time changes nothing, bit for bit.
// The logistic objective's L2 term λ·x_s reads them, so there they differ.
func TestNoStashEqualsPipeDreamOnQuadratics(t *testing.T) {
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 4, Microbatches: 40})
	for _, alg := range []Algorithm{SGD, Adam} {
		set := Settings{StepSize: 1.0 / 64, LogEvery: 8, Optimizer: Optimizer{Algorithm: alg}}
		quad := quadratic(t, 200, 32, 4, 10, 3)
		identicalResults(t, "quadratic "+string(alg), mustRun(t, quad, PipeDream{Timeline: tl}, set), mustRun(t, quad, PipeDreamNoStash{Timeline: tl}, set))
		tri := tridiagonal(t, 200, 32, 4, 10, 3)
		identicalResults(t, "tridiagonal "+string(alg), mustRun(t, tri, PipeDream{Timeline: tl}, set), mustRun(t, tri, PipeDreamNoStash{Timeline: tl}, set))
		f := logistic(t, 200, 32, 4, 10, 0, 3)
		a, b := mustRun(t, f, PipeDream{Timeline: tl}, set), mustRun(t, f, PipeDreamNoStash{Timeline: tl}, set)
		if a.FinalLoss == b.FinalLoss {
			t.Errorf("logistic with L2, %s: pd-nostash = pd (%g)", alg, a.FinalLoss)
		}
	}
}

// On the language model the block gradient reads the stage's own weights
// (attention, MLP, layer norm), so dropping the stash changes the run.
func TestNoStashDiffersOnTheLM(t *testing.T) {
	text, _ := charlm.MarkovCorpus(1, 4000)
	cfg := charlm.DefaultConfig()
	cfg.Stages, cfg.Embed, cfg.Heads, cfg.SeqLen, cfg.Batch, cfg.EvalBatches = 3, 8, 2, 8, 2, 1
	lm, err := charlm.New(cfg, text)
	if err != nil {
		t.Fatal(err)
	}
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 3, Microbatches: 12})
	set := Settings{StepSize: 0.05}
	a, b := mustRun(t, lm, PipeDream{Timeline: tl}, set), mustRun(t, lm, PipeDreamNoStash{Timeline: tl}, set)
	differ := 0
	for j := range a.X {
		if a.X[j] != b.X[j] {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("pd-nostash and pd reach the same LM point")
	}
}

// 2BW with groups of one microbatch updates after every backward with
// that backward's gradient at its stashed point: PipeDream, bit for bit
// (the mean of one gradient is the gradient: g/1 = g exactly).
func TestTwoBWWithOneMicrobatchIsPipeDream(t *testing.T) {
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 4, Microbatches: 30})
	f := logistic(t, 100, 16, 4, 5, 0.5, 2)
	for _, alg := range Algorithms {
		set := Settings{StepSize: 0.05, Seed: 3, Optimizer: Optimizer{Algorithm: alg, Momentum: 0.9}}
		identicalResults(t, "2bw A=1 "+string(alg), mustRun(t, f, PipeDream{Timeline: tl}, set), mustRun(t, f, TwoBW{Timeline: tl, Accumulate: 1}, set))
	}
	// λ = 0 turns delay compensation off.
	set := Settings{StepSize: 0.05, Seed: 3}
	identicalResults(t, "dc λ=0", mustRun(t, f, PipeDream{Timeline: tl}, set), mustRun(t, f, DelayCompensation{Timeline: tl}, set))
	identicalResults(t, "dc-a λ0=0", mustRun(t, f, PipeDream{Timeline: tl}, set), mustRun(t, f, DelayCompensation{Timeline: tl, Adaptive: true}, set))
}

// 2BW's groups: A microbatches per update, S·⌈N/A⌉ block updates.
func TestTwoBWUpdateCount(t *testing.T) {
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 4, Microbatches: 30})
	res := mustRun(t, quadratic(t, 100, 16, 4, 5, 2), TwoBW{Timeline: tl, Accumulate: 4}, Settings{StepSize: 0.01})
	if want := 4 * 8; res.BlockUpdates != want {
		t.Errorf("%d block updates, want S·⌈N/A⌉ = %d", res.BlockUpdates, want)
	}
}

// The versions 2BW's forwards read on the unit-time PipeDream timeline,
// against the closed form read off its steady state (docs/reference.md
// §1.2's rendering): F(m, s) runs after the backwards of microbatches
// 0 .. m − S + s on stage s, so with groups of A it reads the weights of
// u = ⌊(m − S + s + 1)/A⌋ groups, age ⌊m/A⌋ − u. With A = S every age is 0
// or 1 — never more than 2BW's design (one version behind) — and at most
// two versions are held, as 2BW keeps.
func TestTwoBWVersionAges(t *testing.T) {
	const S, N = 4, 48
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: S, Microbatches: N})
	v, err := VersionAges(tl, S)
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s < S; s++ {
		for m, age := range v.Ages[s] {
			if age < 0 || age > 1 {
				t.Errorf("stage %d microbatch %d: age %d, want 0 or 1", s, m, age)
			}
			if m >= 2*S {
				if want := m/S - (m-S+s+1)/S; age != want {
					t.Errorf("stage %d microbatch %d: age %d, closed form %d", s, m, age, want)
				}
			}
		}
		if v.Kept[s] > 2 {
			t.Errorf("stage %d holds %d versions at once, 2BW keeps 2", s, v.Kept[s])
		}
	}
	if v.Kept[0] != 2 {
		t.Errorf("stage 0 holds at most %d versions, want 2", v.Kept[0])
	}
}

// Weight prediction and PipeMare by hand on the two-stage grid
// (stage 0: F0 F1 . B0 ...; stage 1: . F0 B0 F1 B1 ...): the first three
// updates, B(0, 1), B(0, 0), B(1, 1), read what pd reads. Stage 0's F1
// runs before its first update, so u = 0 and ŵ = w, and no forward of
// stage 1 waits for an update of its own (τ = 0: ŵ = w, and PipeMare's
// w − τ·δ = w at rate α·1^(−p) = α); B(0, 0) finds block 0 unchanged, so
// reading it without a stash is reading the stash. From B(1, 0) on (τ = 1
// on stage 0) both move the reads, and the runs part.
func TestPredictAndPipeMareMoveTheReads(t *testing.T) {
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 2, Microbatches: 4})
	set := Settings{StepSize: 0.1, LogEvery: 1}
	pd := mustRun(t, toy{}, PipeDream{Timeline: tl}, set)
	for _, m := range []Method{Predict{Timeline: tl}, PipeMare{Timeline: tl, Decay: 0.5}} {
		got := mustRun(t, toy{}, m, set)
		for i := 0; i <= 3; i++ {
			if got.Records[i].Loss != pd.Records[i].Loss {
				t.Errorf("%s: record %d loss %.17g, pd %.17g", m.Name(), i, got.Records[i].Loss, pd.Records[i].Loss)
			}
		}
		if got.FinalLoss == pd.FinalLoss {
			t.Errorf("%s: final loss %g equals pd's", m.Name(), got.FinalLoss)
		}
	}
}

// A target is reached at the first record at or below it; the loss at a
// budget is the loss after the last update ending within it, checked
// against the dense curve of the same run (one record per update).
func TestTargetAndBudget(t *testing.T) {
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 4, Microbatches: 40})
	f := quadratic(t, 200, 32, 4, 10, 3)
	dense := mustRun(t, f, PipeDream{Timeline: tl}, Settings{StepSize: 1.0 / 64, LogEvery: 1})
	target := dense.Records[50].Loss
	first := -1
	for i, r := range dense.Records {
		if r.Loss <= target {
			first = i
			break
		}
	}
	const budget = 37.5
	var atBudget float64
	for _, r := range dense.Records {
		if r.Time <= budget {
			atBudget = r.Loss
		}
	}
	res := mustRun(t, f, PipeDream{Timeline: tl}, Settings{StepSize: 1.0 / 64, LogEvery: 1, TargetLoss: target, Budget: budget})
	if res.UpdatesToTarget != dense.Records[first].Updates || res.TimeToTarget != dense.Records[first].Time {
		t.Errorf("target reached at %d updates, time %g; want %d, %g", res.UpdatesToTarget, res.TimeToTarget, dense.Records[first].Updates, dense.Records[first].Time)
	}
	if math.Abs(res.LossAtBudget-atBudget) > 1e-12*atBudget {
		t.Errorf("loss at budget %.17g, want %.17g", res.LossAtBudget, atBudget)
	}
	never := mustRun(t, f, PipeDream{Timeline: tl}, Settings{StepSize: 1.0 / 64, TargetLoss: 1e-300})
	if never.UpdatesToTarget != -1 || !math.IsNaN(never.TimeToTarget) || !math.IsNaN(never.LossAtBudget) {
		t.Errorf("unreached target and no budget: %d, %g, %g", never.UpdatesToTarget, never.TimeToTarget, never.LossAtBudget)
	}
}

// A split backward replays as its B: I lets the gradient flow on and
// changes no weights, W takes the weight gradient and lands the update.
// Every B(m, s) of the PipeDream grid cut into I(m, s) then W(m, s) in the
// same step keeps the replay order of the weight updates, so every method
// gives the same run, bit for bit.
func TestSplitBackwardReplaysAsB(t *testing.T) {
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 3, Microbatches: 12})
	split := &sim.Timeline{Table: tl.Table}
	for _, e := range tl.Events {
		if e.Action.Kind != pipeline.Backward {
			split.Events = append(split.Events, e)
			continue
		}
		i, w := e, e
		i.Action.Kind, i.End = pipeline.BackwardInput, e.Start+0.5
		w.Action.Kind, w.Start = pipeline.BackwardWeight, e.Start+0.5
		split.Events = append(split.Events, i, w)
	}
	sim.SortEvents(split.Events)
	f := logistic(t, 60, 12, 3, 5, 0.5, 4)
	set := Settings{StepSize: 0.05, Seed: 2, Optimizer: Optimizer{Algorithm: Adam}}
	for _, pair := range [][2]Method{
		{PipeDream{Timeline: tl}, PipeDream{Timeline: split}},
		{PipeMare{Timeline: tl, Decay: 0.5}, PipeMare{Timeline: split, Decay: 0.5}},
		{Predict{Timeline: tl}, Predict{Timeline: split}},
		{TwoBW{Timeline: tl}, TwoBW{Timeline: split}},
	} {
		identicalResults(t, pair[0].Name()+" split", mustRun(t, f, pair[0], set), mustRun(t, f, pair[1], set))
	}
}

// heldOut is a quadratic with a held-out loss of its own (twice the
// training loss plus one), to see which loss a run records and judges.
type heldOut struct{ *objectives.Linear }

func (h heldOut) ValidationLoss(x []float64) float64 { return 2*h.Loss(x) + 1 }

// With a held-out set every record carries its loss, and the target is
// judged on it, not on the training loss.
func TestValidationLossIsRecordedAndJudged(t *testing.T) {
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 2, Microbatches: 40})
	f := heldOut{quadratic(t, 100, 8, 2, 10, 1)}
	plain := mustRun(t, f.Linear, PipeDream{Timeline: tl}, Settings{StepSize: 0.01, LogEvery: 4})
	// A target the training loss reaches at its 3rd record but the
	// validation loss (2f + 1 > f) does not until later, if at all.
	target := plain.Records[3].Loss
	res := mustRun(t, f, PipeDream{Timeline: tl}, Settings{StepSize: 0.01, LogEvery: 4, TargetLoss: target})
	want := -1
	for _, r := range res.Records {
		if r.ValidationLoss != 2*r.Loss+1 {
			t.Fatalf("record at %d updates: validation %g, want 2·%g + 1", r.Updates, r.ValidationLoss, r.Loss)
		}
		if want < 0 && r.ValidationLoss <= target {
			want = r.Updates
		}
	}
	if res.UpdatesToTarget != want {
		t.Errorf("target judged at %d updates, want %d (the validation loss's)", res.UpdatesToTarget, want)
	}
	if !math.IsNaN(plain.Records[0].ValidationLoss) {
		t.Errorf("no held-out set: validation loss %g, want NaN", plain.Records[0].ValidationLoss)
	}
}

// Each remedy against an independent implementation of its rule:
// testdata/remedies_two_stage.py replays the two-stage toy in the
// hand-written PipeDream order (S = 2, N = 4) with each rule written from
// its paper (docs/methods.md), with plain SGD and with SGD momentum 0.9.
func TestRemediesMatchIndependentReplay(t *testing.T) {
	rows := readTestCSV(t, "testdata/remedies_two_stage.csv")
	var err error
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 2, Microbatches: 4})
	methods := map[string]Method{
		"pd-nostash": PipeDreamNoStash{Timeline: tl}, "2bw": TwoBW{Timeline: tl, Accumulate: 2},
		"pipemare": PipeMare{Timeline: tl, Warmup: 4, Decay: 0.9}, "predict": Predict{Timeline: tl},
		"dc": DelayCompensation{Timeline: tl, Lambda: 0.5}, "dc-a": DelayCompensation{Timeline: tl, Lambda: 0.5, Adaptive: true},
	}
	seen := map[string]bool{}
	for _, row := range rows[1:] {
		m, ok := methods[row[0]]
		if !ok {
			t.Fatalf("unknown method %q in the table", row[0])
		}
		seen[row[0]] = true
		want := make([]float64, 4)
		for j := range want {
			if want[j], err = strconv.ParseFloat(row[j+2], 64); err != nil {
				t.Fatal(err)
			}
		}
		opt := Optimizer{Algorithm: Algorithm(row[1]), Momentum: 0.9}
		if opt.Algorithm == SGD {
			opt.Momentum = 0
		}
		res := mustRun(t, toy{}, m, Settings{StepSize: 0.1, Optimizer: opt})
		closeVectors(t, row[0]+" "+row[1], res.X, want, 1e-12)
	}
	if len(seen) != len(methods) {
		t.Errorf("the table covers %d of %d remedies", len(seen), len(methods))
	}
}
