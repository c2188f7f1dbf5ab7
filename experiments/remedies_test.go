package experiments

import (
	"math"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/results"
)

// Every remedy and optimizer runs from a spec; their rows record the
// optimizer, and with a target and a budget the time to target and the
// loss at budget, which a run without them leaves null. The run ids of
// the specs of before (plain SGD, no remedy keys) do not change: the new
// keys enter a run's name only when set.
func TestExecuteRemediesAndOptimizers(t *testing.T) {
	runs, outs := execute(t, `objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [2]
time_budget: [60]
target_loss: 1e9
methods:
  - {name: pipedream, optimizer: adam, step_sizes: {values: [0.01]}}
  - {name: pd-nostash, optimizer: {name: momentum, momentum: 0.5}, step_sizes: {values: [0.01]}}
  - {name: 2bw, accumulate: 2, step_sizes: {values: [0.01]}}
  - {name: pipemare, pipemare_warmup: 10, step_sizes: {values: [0.01]}}
  - {name: predict, optimizer: nesterov, step_sizes: {values: [0.01]}}
  - {name: dc, dc_lambda: 0.5, optimizer: {name: adamw, weight_decay: 0.1}, step_sizes: {values: [0.01]}}
`)
	optimizers := map[string]string{"pipedream": "adam b1=0.9 b2=0.999 eps=1e-08", "pd-nostash": "momentum mu=0.5", "2bw": "sgd",
		"pipemare": "sgd", "predict": "nesterov mu=0.9", "dc": "adamw b1=0.9 b2=0.999 eps=1e-08 wd=0.1"}
	for i, r := range runs {
		row := outs[i].Runs[0]
		if row.Optimizer != optimizers[r.Method] || row.Outcome != results.OutcomeOK {
			t.Errorf("%s: optimizer %q outcome %s, want %q", r.Method, row.Optimizer, row.Outcome, optimizers[r.Method])
		}
		// A target above the initial loss is reached at the first record.
		if row.UpdatesToTarget != 0 || row.TimeToTarget != 0 || math.IsNaN(row.LossAtBudget) {
			t.Errorf("%s: target at %d updates, time %g; loss at budget %g", r.Method, row.UpdatesToTarget, row.TimeToTarget, row.LossAtBudget)
		}
		if !strings.Contains(r.Name, "target_loss=1e+09") {
			t.Errorf("%s: name %q lacks the target", r.Method, r.Name)
		}
	}
	plain, outs := execute(t, `objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [2]
total_microbatches: [20]
methods:
  - {name: pipedream, step_sizes: {values: [0.01]}}
`)
	if row := outs[0].Runs[0]; row.UpdatesToTarget != results.NotReached || !math.IsNaN(row.TimeToTarget) || !math.IsNaN(row.LossAtBudget) {
		t.Errorf("no target, no budget: %d, %g, %g; want nulls", row.UpdatesToTarget, row.TimeToTarget, row.LossAtBudget)
	}
	const before = "experiment=convergence objective=quadratic n=40 d=8 batch=4 method=pipedream S=2 step=0.01 N=20 cost=unit replicate=0 seed=0"
	if plain[0].Name != before {
		t.Errorf("plain run's name %q, want the name of before %q", plain[0].Name, before)
	}
}

func TestParseSpecRejectsRemedyKeys(t *testing.T) {
	head := "objectives: [quadratic]\nn: 40\nd: 8\nbatch_size: 4\nstages: [2]\ntotal_microbatches: [4]\nmethods:\n"
	for _, tc := range []struct{ name, method, want string }{
		{"unknown optimizer", "  - {name: pipedream, optimizer: sophia, step_sizes: {values: [1]}}", `methods[0].optimizer: unknown optimizer "sophia"`},
		{"beta1 on momentum", "  - {name: pipedream, optimizer: {name: momentum, beta1: 0.5}, step_sizes: {values: [1]}}", "methods[0].optimizer.beta1: beta1 applies to adam, adamw, lion and muon, not momentum"},
		{"muon scale on adam", "  - {name: pipedream, optimizer: {name: adam, muon_scale: original}, step_sizes: {values: [1]}}", "methods[0].optimizer.muon_scale: muon_scale applies to muon, not adam"},
		{"bad muon scale", "  - {name: pipedream, optimizer: {name: muon, muon_scale: spectral}, step_sizes: {values: [1]}}", `unknown muon scale "spectral"`},
		{"ef lambda on dc", "  - {name: dc, ef_lambda: 1, step_sizes: {values: [1]}}", "methods[0].ef_lambda: only ef takes ef_lambda"},
		{"negative ef lambda", "  - {name: ef, ef_lambda: -1, step_sizes: {values: [1]}}", "methods[0].ef_lambda"},
		{"accumulate on pd", "  - {name: pipedream, accumulate: 2, step_sizes: {values: [1]}}", "methods[0].accumulate: only 2bw and ef take accumulate"},
		{"negative accumulate", "  - {name: 2bw, accumulate: -1, step_sizes: {values: [1]}}", "methods[0].accumulate"},
		{"decay out of range", "  - {name: pipemare, pipemare_decay: 1, step_sizes: {values: [1]}}", "methods[0].pipemare_decay"},
		{"lambda on pipemare", "  - {name: pipemare, dc_lambda: 1, step_sizes: {values: [1]}}", "only dc and dc-a take dc_lambda"},
		{"same method twice", "  - {name: dc, dc_lambda: 1, step_sizes: {values: [1]}}\n  - {name: dc, dc_lambda: 1, step_sizes: {values: [2]}}", "methods[1].name: dc (dc_lambda=1) with optimizer sgd is given twice"},
		{"bad schedule", "  - {name: pipedream, optimizer: {name: adam, lr_schedule: step}, step_sizes: {values: [1]}}", `unknown learning-rate schedule "step"`},
	} {
		_, err := ParseSpec("s.yaml", []byte(head+tc.method+"\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
