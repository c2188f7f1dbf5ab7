package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/request"
)

// trainJSON runs "pipelab train ... --format json" and decodes the report.
func trainJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append(append([]string{"train"}, args...), "--format", "json"), &out, &errb); code != 0 {
		t.Fatalf("train %v: exit %d, stderr %s", args, code, errb.String())
	}
	var rep map[string]any
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("train %v: output is not JSON: %v\n%s", args, err, out.String())
	}
	return rep
}

func firstLoss(rep map[string]any) float64 {
	return rep["curve"].([]any)[0].(map[string]any)["loss"].(float64)
}

// The run's shape follows the closed forms: PipeDream takes 2N + 2S - 2
// steps and N·S block updates (docs/reference.md §1.2); with a budget, the
// smallest N reaching it (§1.6); sync runs whole 1F1B iterations of
// 2(M + S - 1) steps (§2); the logistic loss at the zero start is ln 2.
func TestTrainShapes(t *testing.T) {
	small := []string{"--objective", "logistic", "--n", "40", "--d", "8", "--batch-size", "4", "--stages", "2", "--step-size", "0.1"}
	cases := []struct {
		name                        string
		args                        []string
		microbatches, steps, blocks float64
		overshoot                   float64
	}{
		{"pd by microbatches", []string{"--method", "pipedream", "--total-microbatches", "20"}, 20, 42, 40, 0},
		{"pd by budget", []string{"--method", "pipedream", "--time-budget", "100"}, 49, 100, 98, 0},
		{"localsgd H=1 R=S", []string{"--method", "localsgd", "--total-microbatches", "12", "--local-steps", "1"}, 12, -1, 24, 0},
		{"sync by budget", []string{"--method", "sync", "--time-budget", "100"}, 34, 102, 34, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := trainJSON(t, append(small, c.args...)...)
			if rep["total_microbatches"] != c.microbatches || rep["block_updates"] != c.blocks || (c.steps >= 0 && rep["sim_time"] != c.steps) {
				t.Errorf("microbatches %v, time steps %v, block updates %v; want %v, %v, %v",
					rep["total_microbatches"], rep["sim_time"], rep["block_updates"], c.microbatches, c.steps, c.blocks)
			}
			if rep["overshoot"] != c.overshoot || rep["outcome"] != "ok" {
				t.Errorf("overshoot %v outcome %v", rep["overshoot"], rep["outcome"])
			}
			if got := firstLoss(rep); math.Abs(got-math.Ln2) > 1e-15 {
				t.Errorf("initial loss %.17g, want ln 2", got)
			}
		})
	}
}

// RPD with PipeDream's exact delays ends where PipeDream ends
// (docs/reference.md §1.4).
func TestTrainRPDExactMatchesPipeDream(t *testing.T) {
	args := []string{"--objective", "quadratic", "--n", "60", "--d", "12", "--batch-size", "6", "--stages", "3", "--total-microbatches", "15", "--step-size", "0.02", "--seed", "4"}
	pd := trainJSON(t, append(args, "--method", "pipedream")...)
	rpd := trainJSON(t, append(args, "--method", "rpd", "--delays", "exact")...)
	if pd["final_loss"] != rpd["final_loss"] {
		t.Errorf("pd final loss %v, rpd(exact) %v", pd["final_loss"], rpd["final_loss"])
	}
}

// Loaded data: the quadratic's loss at zero is ‖y‖²/(2n) = (1 + 4 + 9 + 16)/8.
func TestTrainFromCSV(t *testing.T) {
	x := writeFile(t, "X.csv", "1,0\n0,1\n1,1\n2,0\n")
	y := writeFile(t, "y.csv", "1\n2\n3\n4\n")
	rep := trainJSON(t, "--objective", "quadratic", "--data", x, "--labels", y, "--batch-size", "2",
		"--stages", "2", "--method", "rpd", "--total-microbatches", "4", "--step-size", "0.1")
	if got := firstLoss(rep); got != 30.0/8 {
		t.Errorf("initial loss %v, want 30/8", got)
	}
}

// A diverging run is reported: it stops at the first logged loss above
// 10⁶ times the initial loss, before it overflows.
func TestTrainDiverged(t *testing.T) {
	rep := trainJSON(t, "--objective", "quadratic", "--n", "40", "--d", "8", "--batch-size", "5", "--stages", "2",
		"--method", "pipedream", "--total-microbatches", "200", "--step-size", "100")
	final, ok := rep["final_loss"].(float64)
	if rep["outcome"] != "diverged" || !ok || !(final > 1e6*firstLoss(rep)) || rep["block_updates"].(float64) >= 400 {
		t.Errorf("diverged %v, final loss %v after %v updates; want true, above 1e6 × %v, before the end",
			rep["outcome"], rep["final_loss"], rep["block_updates"], firstLoss(rep))
	}
}

func TestTrainErrors(t *testing.T) {
	trace := writeFile(t, "trace.csv", "0,0,0,0\n1,0,x,0\n")
	base := []string{"--objective", "quadratic", "--n", "20", "--d", "4", "--batch-size", "5", "--stages", "2", "--step-size", "0.1"}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no objective", []string{"--method", "pipedream", "--stages", "2", "--total-microbatches", "4", "--step-size", "1"}, 2, "--objective"},
		{"both lengths", append(base, "--method", "pipedream", "--total-microbatches", "4", "--time-budget", "9"), 2, "exactly one"},
		{"neither length", append(base, "--method", "pipedream"), 2, "exactly one"},
		{"l2 on quadratic", append(base, "--method", "pipedream", "--total-microbatches", "4", "--l2", "0.1"), 2, "logistic objective only"},
		{"bad method", append(base, "--method", "adam", "--total-microbatches", "4"), 2, "--method"},
		{"trace with a bad cell", append(base, "--method", "rpd", "--delays", trace, "--total-microbatches", "1"), 2, "line 2 column 3"},
		{"unknown optimizer", append(base, "--method", "pipedream", "--total-microbatches", "4", "--optimizer", "sophia"), 2, "--optimizer must be"},
		{"unknown method", append(base, "--method", "hogwild", "--total-microbatches", "4"), 2, "--method must be"},
		{"delta with pd", append(base, "--method", "pipedream", "--total-microbatches", "4", "--delta", "3"), 2, "--delta applies to --method rpd, not pipedream"},
		{"accumulate with pd", append(base, "--method", "pipedream", "--total-microbatches", "4", "--accumulate", "2"), 2, "--accumulate applies to --method 2bw or ef, not pipedream"},
		{"beta1 with momentum", append(base, "--method", "pipedream", "--total-microbatches", "4", "--optimizer", "momentum", "--beta1", "0.5"), 2, "--beta1 applies to --optimizer adam, adamw, lion or muon, not momentum"},
		{"accumulate 0", append(base, "--method", "2bw", "--total-microbatches", "4", "--accumulate", "0"), 2, "--accumulate must be at least 1"},
		{"sync on an async table", append(base, "--method", "sync", "--kind", "pipedream", "--total-microbatches", "4"), 2, "method sync needs a flush schedule"},
		{"localsgd on a flush", append(base, "--method", "localsgd", "--kind", "1f1b", "--total-microbatches", "4"), 2, "method localsgd needs a replica-averaging table"},
		{"pd on replicas", append(base, "--method", "pipedream", "--kind", "localsgd", "--total-microbatches", "4"), 2, "cannot replay a replica-averaging table"},
		{"rpd sampled on a kind", append(base, "--method", "rpd", "--kind", "1f1b", "--total-microbatches", "4"), 2, "--delays exact"},
		{"kind and schedule", append(base, "--method", "pipedream", "--kind", "1f1b", "--schedule", "x.csv"), 2, "not both"},
		{"zero target", append(base, "--method", "pipedream", "--total-microbatches", "4", "--target-loss", "0"), 2, "--target-loss must be positive"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(append([]string{"train"}, c.args...), &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d mentioning %q", c.name, code, errb.String(), c.code, c.want)
		}
	}
}

// §1.3: S = 4, N = 40 takes 2N + 2S - 2 = 86 steps; the steady-state
// delays peak at ⌊S² - S/2⌋ = 14 with mean 7.55 (measured with the
// reference code).
func TestDelaysCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"delays", "--ranks", "4", "--format", "json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep request.DelaysReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.TimeSteps != 86 || rep.Max != 14 || math.Abs(rep.Mean-7.55) > 0.005 || rep.Total != 40 {
		t.Errorf("report %+v", rep)
	}
	out.Reset()
	if code := run([]string{"delays", "--ranks", "8"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "max:  60") {
		t.Errorf("text output for S = 8:\n%s", out.String())
	}
	if code := run([]string{"delays", "--ranks", "0"}, &out, &errb); code != 2 {
		t.Errorf("--stages 0: exit %d, want 2", code)
	}
}

// Any table, any optimizer: 2BW with one microbatch per group is
// PipeDream on the table it replays (optim's identity), through the
// command line on a zero-bubble table with split backwards; the GPU clock
// counts seconds; a target reached reports its time and updates, one
// never reached reports null.
func TestTrainKindsClocksAndTargets(t *testing.T) {
	args := []string{"--objective", "logistic", "--n", "60", "--d", "12", "--batch-size", "6", "--stages", "3", "--step-size", "0.05",
		"--kind", "zb-h1", "--total-microbatches", "12", "--optimizer", "adam"}
	pd := trainJSON(t, append(args, "--method", "pipedream")...)
	twobw := trainJSON(t, append(args, "--method", "2bw", "--accumulate", "1")...)
	if pd["final_loss"] != twobw["final_loss"] || pd["block_updates"] != 36.0 || pd["kind"] != "zb-h1" {
		t.Errorf("pd %v (%v updates, %v), 2bw A=1 %v", pd["final_loss"], pd["block_updates"], pd["kind"], twobw["final_loss"])
	}
	gpu := trainJSON(t, append(args, "--method", "pipedream", "--model", "gpt-1.3b", "--gpu", "a100", "--link", "nvlink")...)
	if ts := gpu["sim_time"].(float64); !(ts > 0 && ts < 10) || !strings.Contains(gpu["cost_model"].(string), "seconds") {
		t.Errorf("GPU clock: time %v, cost %v; want seconds", gpu["sim_time"], gpu["cost_model"])
	}
	initial := firstLoss(pd)
	hit := trainJSON(t, append(args, "--method", "pipedream", "--target-loss", fmt.Sprint(initial*0.999), "--log-every", "1")...)
	if hit["updates_to_target"] == nil || hit["time_to_target"] == nil || hit["updates_to_target"].(float64) < 1 {
		t.Errorf("reachable target: %v updates, time %v", hit["updates_to_target"], hit["time_to_target"])
	}
	miss := trainJSON(t, append(args, "--method", "pipedream", "--target-loss", "1e-9")...)
	if miss["updates_to_target"] != nil || miss["time_to_target"] != nil || miss["loss_at_budget"] != nil {
		t.Errorf("unreachable target: %v, %v; no budget: %v", miss["updates_to_target"], miss["time_to_target"], miss["loss_at_budget"])
	}
}

// A PyTorch CSV with split backwards (I, W) replays under every method
// that takes a flush table; its shape comes from the file.
func TestTrainSchedule(t *testing.T) {
	csv := "../../pipeline/testdata/torch/zb1p_2rank_2stagep_compute.csv"
	args := []string{"--objective", "quadratic", "--n", "40", "--d", "8", "--batch-size", "5", "--step-size", "0.01", "--schedule", csv}
	for _, m := range []string{"pipedream", "pd-nostash", "2bw", "pipemare", "predict", "dc"} {
		rep := trainJSON(t, append(args, "--method", m)...)
		if rep["stages"] != 4.0 || rep["total_microbatches"] != 8.0 || rep["outcome"] != "ok" {
			t.Errorf("%s: stages %v, microbatches %v, outcome %v", m, rep["stages"], rep["total_microbatches"], rep["outcome"])
		}
	}
	rep := trainJSON(t, append(args, "--method", "sync", "--total-microbatches", "16")...)
	if rep["block_updates"] != 8.0 {
		t.Errorf("sync on the file: %v block updates, want 2 iterations × 4 stages", rep["block_updates"])
	}
}

// Every family a generator has replays: DualPipeV's overlapped F;B pairs
// as their forward and backward, its V placement giving 2P stages; a
// time budget skips the counts DualPipeV refuses (fewer than 2P).
func TestTrainDualPipeV(t *testing.T) {
	args := []string{"--objective", "logistic", "--n", "60", "--d", "16", "--batch-size", "6", "--stages", "4", "--step-size", "0.05",
		"--kind", "dualpipev", "--method", "pipedream"}
	rep := trainJSON(t, append(args, "--total-microbatches", "16")...)
	if rep["stages"] != 8.0 || rep["block_updates"] != 128.0 || rep["outcome"] != "ok" {
		t.Errorf("dualpipev: stages %v, block updates %v (want 2P = 8, N·2P = 128)", rep["stages"], rep["block_updates"])
	}
	budget := trainJSON(t, append(args, "--time-budget", "60")...)
	if budget["sim_time"].(float64) < 60 || budget["total_microbatches"].(float64) < 8 {
		t.Errorf("dualpipev by budget: %v steps, %v microbatches", budget["sim_time"], budget["total_microbatches"])
	}
}
