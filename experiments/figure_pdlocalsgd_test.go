package experiments

import (
	"fmt"
	"math"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/results"
)

// pipeDreamSteps and localSGDSteps are the unit-time durations of
// docs/reference.md §1.2 and §1.5: 2N + 2S - 2 for PipeDream, and with
// R = S replicas, q = ⌊N/RH⌋ and r = N mod RH,
// q(2RH + 2S - 2) + [r > 0](2r + 2S - 2) for LocalSGD.
func pipeDreamSteps(n, s int) int { return 2*n + 2*s - 2 }

func localSGDSteps(n, s, h int) int {
	q, r := n/(s*h), n%(s*h)
	t := q * (2*s*h + 2*s - 2)
	if r > 0 {
		t += 2*r + 2*s - 2
	}
	return t
}

// TestPDvsLocalSGDPaperSteps: the figure's default gives every method
// N = 600 microbatches at S = 16 and cuts them at PipeDream's 1230 steps,
// the shortest timeline; LocalSGD's take 1770, 1440 and 1260 for H = 2,
// 5, 30. The counts are the paper notebook's (issue 12), the closed forms
// §1.2/§1.5's, and the timelines the ones the runs replay.
func TestPDvsLocalSGDPaperSteps(t *testing.T) {
	f, err := LookupFigure("pd-vs-localsgd")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := f.Runs(false)
	if err != nil {
		t.Fatal(err)
	}
	notebook := map[string]int{"pipedream": 1230, "localsgd/2": 1770, "localsgd/5": 1440, "localsgd/30": 1260}
	seen := map[string]bool{}
	for _, r := range runs {
		if r.Cost.CostModel != "unit" {
			continue
		}
		if r.TotalMicrobatches != 600 || r.Stages != 16 || r.Budget != 0 {
			t.Fatalf("%s: N = %d, S = %d, budget %g; want 600, 16, none", r.Name, r.TotalMicrobatches, r.Stages, r.Budget)
		}
		key := CutRival{Method: r.Method, LocalSteps: r.LocalSteps}.String()
		closed := pipeDreamSteps(600, 16)
		if r.Method == "localsgd" {
			closed = localSGDSteps(600, 16, r.LocalSteps)
		}
		pt, err := timelineFor(r.Method, r)
		if err != nil {
			t.Fatal(err)
		}
		if closed != notebook[key] || pt.time != float64(closed) {
			t.Errorf("%s: closed form %d, timeline %g, notebook %d", key, closed, pt.time, notebook[key])
		}
		cut, err := cutTime(r)
		if err != nil || cut != 1230 {
			t.Errorf("%s: cut at %g (%v), want 1230", key, cut, err)
		}
		seen[key] = true
	}
	if len(seen) != len(notebook) {
		t.Errorf("methods %v, want those of %v", seen, notebook)
	}
}

// cutPair is PipeDream and LocalSGD (H = 2) on a small tridiagonal
// quadratic with the same N, the cut tests' spec.
const cutPair = `objectives: [tridiagonal]
n: 64
d: 16
batch_size: 4
stages: [4]
total_microbatches: [40]
methods:
  - {name: pipedream, step_sizes: {values: [0.05]}}
  - {name: localsgd, local_steps: [2], step_sizes: {values: [0.05]}}
`

// TestCutEndsAtTheShortestTimeline replays LocalSGD (H = 2) and
// PipeDream with the same N, once cut and once whole with every block
// update logged. The cut runs end at PipeDream's duration; PipeDream's
// cut run is its whole run (the tridiagonal quadratic has no noise, so
// the runs' differing seeds do not matter); LocalSGD's final loss is the
// whole run's loss at its last record before the cut, and its block
// updates are the timeline's B ops that end by then.
func TestCutEndsAtTheShortestTimeline(t *testing.T) {
	const common = cutPair
	cutRuns, cutOut := execute(t, common+"cut: shortest\n")
	_, whole := execute(t, common+"log_every: 1\n")
	shortest := float64(pipeDreamSteps(40, 4))
	for i, r := range cutRuns {
		got, full := cutOut[i].Runs[0], whole[i]
		if got.SimTime != shortest {
			t.Errorf("%s: ends at %g, want %g", r.Method, got.SimTime, shortest)
		}
		if last := cutOut[i].Curves[len(cutOut[i].Curves)-1]; last.Time > shortest || last.Loss != got.FinalLoss {
			t.Errorf("%s: curve ends at %g with %g, final %g", r.Method, last.Time, last.Loss, got.FinalLoss)
		}
		var want results.CurvePoint
		for _, c := range full.Curves {
			if c.Time <= shortest && c.BlockUpdates >= want.BlockUpdates {
				want = c
			}
		}
		if got.FinalLoss != want.Loss || got.BlockUpdates != want.BlockUpdates {
			t.Errorf("%s: cut final %g after %d updates, whole run %g after %d at the cut",
				r.Method, got.FinalLoss, got.BlockUpdates, want.Loss, want.BlockUpdates)
		}
		pt, err := timelineFor(r.Method, r)
		if err != nil {
			t.Fatal(err)
		}
		var bs int64
		for _, e := range pt.tl.Events {
			if e.Action.Kind == pipeline.Backward && e.End <= shortest {
				bs++
			}
		}
		if got.BlockUpdates != bs {
			t.Errorf("%s: %d block updates, the timeline has %d B ops by %g", r.Method, got.BlockUpdates, bs, shortest)
		}
		if r.Method == "pipedream" && got.FinalLoss != full.Runs[0].FinalLoss {
			t.Errorf("pipedream: cut %g, whole %g", got.FinalLoss, full.Runs[0].FinalLoss)
		}
		if r.Method == "localsgd" && !(full.Runs[0].SimTime > shortest) {
			t.Errorf("localsgd lasts %g, not past the cut %g", full.Runs[0].SimTime, shortest)
		}
	}
}

// TestCutTimesItsTarget checks a cut run's time to target against its
// own curve (every update logged): NULL without a target, else the time of
// the first logged loss at or below it, as an uncut run reports it.
func TestCutTimesItsTarget(t *testing.T) {
	const common = cutPair
	_, plain := execute(t, common+"cut: shortest\n")
	for _, out := range plain {
		if r := out.Runs[0]; !math.IsNaN(r.TimeToTarget) || r.UpdatesToTarget != results.NotReached || !math.IsNaN(r.LossAtBudget) {
			t.Errorf("%s without a target: time to target %g, updates %d, loss at budget %g; want NULLs",
				r.Method, r.TimeToTarget, r.UpdatesToTarget, r.LossAtBudget)
		}
	}
	// The whole runs with every update logged: up to the cut their records
	// are the cut runs' (TestCutEndsAtTheShortestTimeline). The target is
	// the median of PipeDream's logged losses, reached mid-run.
	_, probe := execute(t, common+"log_every: 1\n")
	shortest := float64(pipeDreamSteps(40, 4))
	curve := probe[0].Curves
	target := curve[len(curve)/2].Loss
	_, timed := execute(t, common+fmt.Sprintf("cut: shortest\ntarget_loss: %v\n", target))
	for i, out := range timed {
		r := out.Runs[0]
		want, wantUpdates := math.NaN(), int64(results.NotReached)
		for _, c := range probe[i].Curves {
			if c.Time <= shortest && c.Loss <= target {
				want, wantUpdates = c.Time, c.BlockUpdates
				break
			}
		}
		if !(r.TimeToTarget == want || math.IsNaN(r.TimeToTarget) && math.IsNaN(want)) || r.UpdatesToTarget != wantUpdates {
			t.Errorf("%s: time to target %g after %d updates, its curve reaches %g at %g after %d",
				r.Method, r.TimeToTarget, r.UpdatesToTarget, target, want, wantUpdates)
		}
	}
	if math.IsNaN(timed[0].Runs[0].TimeToTarget) {
		t.Error("pipedream never reached the median of its own losses")
	}
}
