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
// the seeds where both reached it (4 for pipedream).
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
	wants := map[[2]string]want{
		{"dc", LossFinal}:                 {-0.08, 0.0555289, 5, 4, true},
		{"dc", MetricHeldOut}:             {-0.08, 0.0555289, 5, 4, true},
		{"dc", MetricTimeToTarget}:        {-2, 0, 5, 5, true},
		{"pipedream", LossFinal}:          {-0.1, 0, 5, 5, true},
		{"pipedream", MetricHeldOut}:      {0.1, 0, 5, 5, true},
		{"pipedream", MetricTimeToTarget}: {-2, 0, 4, 4, false},
	}
	if len(claims) != len(wants) {
		t.Fatalf("%d claims, want %d: %+v", len(claims), len(wants), claims)
	}
	for _, c := range claims {
		w, ok := wants[[2]string{c.Method, c.Metric}]
		if !ok || c.Baseline != "sync" || c.SelectedOn != MetricHeldOut || c.TotalMicrobatches != 0 {
			t.Errorf("unexpected claim %+v", c)
			continue
		}
		if math.Abs(c.Mean-w.mean) > 1e-9 || math.Abs(c.High-c.Mean-w.half) > 1e-6 || c.Replicates != w.n || c.Agree != w.agree || c.Holds != w.holds {
			t.Errorf("%s %s: %v holds %v; want %+v", c.Method, c.Metric, c.Paired(), c.Holds, w)
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
	runs := claimRuns(MinSeeds, "best-final", nil)
	runs[0].HeldOutLoss = math.NaN() // data from files: no held-out loss
	claims, _ := Claims(runs)
	if claims[0].SelectedOn != LossFinal {
		t.Errorf("a group without held-out losses selected on %s, want %s", claims[0].SelectedOn, LossFinal)
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
