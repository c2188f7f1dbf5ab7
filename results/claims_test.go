package results

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"
)

// claimRuns returns the selected runs of one group under a time budget:
// sync's training loss 1 + rep/100 at every replicate, pipedream's 0.1
// below it, dc's equal to pipedream's but 0.1 above at replicate 0, and
// each method's held-out loss its training loss plus off[method]; the
// times to target are sync's 10 and the others' 8, pipedream at
// replicate 4 never reaching it.
func claimRuns(reps int, rule string, off map[string]float64) []Run {
	var runs []Run
	for rep := range int32(reps) {
		for _, m := range []struct {
			name string
			loss float64
			time float64
			n    int32
		}{{"sync", 1, 10, 1404}, {"pipedream", 0.9, 8, 1673}, {"dc", 0.9, 8, 1673}} {
			loss := m.loss + float64(rep)/100
			if m.name == "dc" && rep == 0 {
				loss += 0.1
			}
			ttt := m.time
			if m.name == "pipedream" && rep == 4 {
				ttt = math.NaN()
			}
			runs = append(runs, Run{RunID: fmt.Sprintf("%s-%d", m.name, rep), Experiment: "remedies", Objective: "logistic",
				Optimizer: "adam", Method: m.name, Stages: 4, TotalMicrobatches: m.n, TimeBudget: 20, N: 600, D: 512,
				BatchSize: 10, Replicate: rep, CostModel: CostGPU, Outcome: OutcomeOK, FinalLoss: loss,
				HeldOutLoss: loss + off[m.name], TimeToTarget: ttt, TargetLoss: 0.6, Selected: true, SelectionRule: rule})
		}
	}
	return runs
}

// TestClaims: the rows follow from the runs by the rule, computed by hand.
// pipedream − sync is −0.1 at every seed (an interval of zero width: a
// claim, 5 of 5); dc − sync is (0, −0.1, −0.1, −0.1, −0.1), mean −0.08,
// SD 0.0447214, so the interval is −0.08 ± 2.776445·0.0447214/√5 =
// −0.08 ± 0.0555289, which excludes 0: a claim, 4 of 5 seeds. The
// held-out rows add each method's offset; the time to target pairs only
// the seeds where both reached it (4 for pipedream). Against PipeDream, dc
// is (0.1, 0, 0, 0, 0) on the training loss, mean 0.02, the same
// half-width 0.0555289: no claim, 1 of 5; on the held-out loss, with the
// offsets 0.3 and 0.5, (−0.1, −0.2, −0.2, −0.2, −0.2), mean −0.18: a claim;
// their times to target are equal at the 4 seeds where both reached it.
func TestClaims(t *testing.T) {
	claims, err := Claims(claimRuns(5, "", map[string]float64{"sync": 0.3, "pipedream": 0.5, "dc": 0.3}))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		mean, half float64
		n, agree   int32
		holds      bool
	}
	wants := map[[3]string]want{
		{"dc", "sync", LossFinal}:                 {-0.08, 0.0555289, 5, 4, true},
		{"dc", "sync", MetricHeldOut}:             {-0.08, 0.0555289, 5, 4, true},
		{"dc", "sync", MetricTimeToTarget}:        {-2, 0, 5, 5, true},
		{"pipedream", "sync", LossFinal}:          {-0.1, 0, 5, 5, true},
		{"pipedream", "sync", MetricHeldOut}:      {0.1, 0, 5, 5, true},
		{"pipedream", "sync", MetricTimeToTarget}: {-2, 0, 4, 4, false},
		{"dc", "pipedream", LossFinal}:            {0.02, 0.0555289, 5, 1, false},
		{"dc", "pipedream", MetricHeldOut}:        {-0.18, 0.0555289, 5, 5, true},
		{"dc", "pipedream", MetricTimeToTarget}:   {0, 0, 4, 0, false},
	}
	if len(claims) != len(wants) {
		t.Fatalf("%d claims, want %d: %+v", len(claims), len(wants), claims)
	}
	for _, c := range claims {
		w, ok := wants[[3]string{c.Method, c.Baseline, c.Metric}]
		if !ok || c.SelectedOn != MetricHeldOut || c.TotalMicrobatches != 0 {
			t.Errorf("unexpected claim %+v", c)
			continue
		}
		if math.Abs(c.Mean-w.mean) > 1e-9 || math.Abs(c.High-c.Mean-w.half) > 1e-6 || c.Replicates != w.n || c.Agree != w.agree || c.Holds != w.holds {
			t.Errorf("%s − %s %s: %v holds %v; want %+v", c.Method, c.Baseline, c.Metric, c.Paired(), c.Holds, w)
		}
	}
	path := filepath.Join(t.TempDir(), ClaimsFile)
	if err := WriteClaims(path, claims); err != nil {
		t.Fatal(err)
	}
	back, err := ReadClaims(path)
	if err != nil || len(back) != len(claims) || back[0].Method != claims[0].Method || back[0].Mean != claims[0].Mean {
		t.Errorf("read back %+v (%v), want %+v", back, err, claims)
	}
}

// TestSelectionMetric: a claim names what its steps were selected on.
func TestSelectionMetric(t *testing.T) {
	for rule, want := range map[string]string{
		RuleBestFinalTraining: LossFinal,
		RuleFastestToTarget:   MetricTimeToTarget,
		"best-final":          MetricHeldOut,
	} {
		claims, err := Claims(claimRuns(MinSeeds, rule, nil))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range claims {
			if c.SelectedOn != want {
				t.Errorf("rule %s: selected on %s, want %s", rule, c.SelectedOn, want)
			}
		}
	}
	// A group with no held-out loss at all (data read from files) is
	// selected on the training loss; one held-out loss that overflowed
	// leaves its group on the held-out loss (the run counts as diverged).
	runs := claimRuns(MinSeeds, "best-final", nil)
	for i := range runs {
		switch {
		case runs[i].Method == "dc":
			runs[i].HeldOutLoss = math.NaN()
		case runs[i].Method == "pipedream" && runs[i].Replicate == 2:
			runs[i].HeldOutLoss = math.Inf(1)
		}
	}
	claims, _ := Claims(runs)
	for _, c := range claims {
		if want := map[bool]string{true: LossFinal, false: MetricHeldOut}[c.Method == "dc"]; c.SelectedOn != want {
			t.Errorf("%s − %s: selected on %s, want %s (its own group's metric)", c.Method, c.Baseline, c.SelectedOn, want)
		}
	}
}

// RPD has no clock (sim_time null): its time to target counts updates, so
// it has no time-to-target claim against a method timed in seconds.
func TestClaimsNoTimeForRPD(t *testing.T) {
	runs := claimRuns(MinSeeds, "", nil)
	for i := range runs {
		if runs[i].Method == "dc" {
			runs[i].Method, runs[i].Delta, runs[i].DelayModel, runs[i].SimTime = MethodRPD, 14, DelayUniform, math.NaN()
		}
	}
	claims, err := Claims(runs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range claims {
		if c.Method == "rpd δ=14" && c.Metric == MetricTimeToTarget && c.Replicates > 0 {
			t.Errorf("rpd has a time-to-target claim: %v", c.Paired())
		}
	}
}
