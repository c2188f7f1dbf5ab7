package experiments

import (
	"strings"
	"testing"
)

// An asynchronous method replays the table its entry names: the same
// method, optimizer, step and seed end at a different loss on PipeDream's
// grid, a 1F1B table and a ZB-H1 table, whose weight-gradient backwards
// land at other times (so the updates read other weights). Runs without
// the key, or with its default, keep their names.
func TestExecuteAsyncFamilies(t *testing.T) {
	runs, outs := execute(t, `objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [3]
total_microbatches: [30]
methods:
  - {name: pipedream, step_sizes: {values: [0.02]}}
  - {name: pipedream, kind: 1f1b, optimizer: momentum, step_sizes: {values: [0.02]}}
  - {name: pipedream, kind: zb-h1, optimizer: adam, step_sizes: {values: [0.02]}}
  - {name: pd-nostash, kind: pipedream, step_sizes: {values: [0.02]}}
  - {name: pd-nostash, kind: 1f1b, optimizer: momentum, step_sizes: {values: [0.02]}}
  - {name: dc, kind: 1f1b, step_sizes: {values: [0.02]}}
  - {name: dc, kind: zb-h1, optimizer: momentum, step_sizes: {values: [0.02]}}
`)
	final := map[string]float64{}
	for i, r := range runs {
		row := outs[i].Runs[0]
		if row.Outcome != "ok" {
			t.Fatalf("%s: outcome %s", r.Name, row.Outcome)
		}
		family := "pipedream"
		if _, f, ok := strings.Cut(r.Name, "family="); ok {
			family, _, _ = strings.Cut(f, " ")
		}
		final[r.Method+"/"+row.Optimizer[:3]+"/"+family] = row.FinalLoss
	}
	if len(final) != 7 {
		t.Fatalf("runs %v, want 7 distinct method, optimizer and table", final)
	}
	if strings.Contains(runs[3].Name, "family") {
		t.Errorf("family: pipedream, the default, entered the name %q", runs[3].Name)
	}
	// Plain SGD on the grid against momentum on 1F1B are different
	// optimizers; compare like with like with a second spec.
	plain, pouts := execute(t, `objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [3]
total_microbatches: [30]
methods:
  - {name: pipedream, kind: 1f1b, step_sizes: {values: [0.02]}}
  - {name: pd-nostash, kind: zb-h1, step_sizes: {values: [0.02]}}
`)
	if got, grid := pouts[0].Runs[0].FinalLoss, final["pipedream/sgd/pipedream"]; got == grid {
		t.Errorf("pd on 1f1b ends at %v, as on PipeDream's grid; the table was not replayed", got)
	}
	if got, grid := pouts[1].Runs[0].FinalLoss, final["pd-nostash/sgd/pipedream"]; got == grid {
		t.Errorf("pd-nostash on zb-h1 ends at %v, as on PipeDream's grid; the deferred W should change the delays", got)
	}
	if !strings.Contains(plain[1].Name, "family=zb-h1") {
		t.Errorf("name %q lacks its table", plain[1].Name)
	}
}
