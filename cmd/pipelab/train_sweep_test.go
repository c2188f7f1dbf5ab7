package main

import (
	"context"
	"math"
	"testing"

	"github.com/pipelab/pipelab/experiments"
)

// pipelab train and a one-run sweep of the same settings give the same
// curve, bit for bit: both go through experiments.Train (issue 23). The
// sweep's run takes the train's --seed as both of its seeds, which a
// sweep otherwise derives from the spec's seed and the run's name. The
// GPU-clocked LocalSGD case is one train refused before Train served both;
// the l2 case, one a spec could not state before it had the key; the
// last, GPU-clocked at the defaults, one where the command line's --gpu and
// --link once defaulted to other hardware than a spec's.
func TestTrainMatchesOneRunSweep(t *testing.T) {
	const seed = 7
	cases := []struct {
		name  string
		spec  string
		flags []string
	}{
		{"pipedream, quadratic, unit time",
			"objectives: [quadratic]\nn: 120\nd: 16\nbatch_size: 8\nstages: [3]\ntotal_microbatches: [30]\nmethods:\n  - name: pipedream\n    step_sizes: {values: [0.01]}\n",
			[]string{"--objective", "quadratic", "--n", "120", "--d", "16", "--batch-size", "8", "--stages", "3", "--total-microbatches", "30", "--method", "pipedream", "--step-size", "0.01"}},
		{"sync on zb-h1, tridiagonal, time budget",
			"objectives: [tridiagonal]\nn: 60\nd: 16\nbatch_size: 5\nstages: [4]\ntime_budget: [90]\nmethods:\n  - name: sync\n    kind: zb-h1\n    step_sizes: {values: [0.05]}\n    optimizer: adam\n",
			[]string{"--objective", "tridiagonal", "--n", "60", "--d", "16", "--batch-size", "5", "--stages", "4", "--time-budget", "90", "--method", "sync", "--kind", "zb-h1", "--step-size", "0.05", "--optimizer", "adam"}},
		{"pipedream, quadratic, gradient noise",
			"objectives: [quadratic]\nn: 120\nd: 16\nbatch_size: 8\nnoise: [0.05]\nstages: [3]\ntotal_microbatches: [30]\nmethods:\n  - name: pipedream\n    step_sizes: {values: [0.01]}\n",
			[]string{"--objective", "quadratic", "--n", "120", "--d", "16", "--batch-size", "8", "--noise", "0.05", "--stages", "3", "--total-microbatches", "30", "--method", "pipedream", "--step-size", "0.01"}},
		{"pipedream, logistic, l2 given",
			"objectives: [logistic]\nn: 80\nd: 16\nbatch_size: 4\nl2: 0.05\nstages: [3]\ntotal_microbatches: [40]\nmethods:\n  - name: pipedream\n    step_sizes: {values: [0.1]}\n",
			[]string{"--objective", "logistic", "--n", "80", "--d", "16", "--batch-size", "4", "--l2", "0.05", "--stages", "3", "--total-microbatches", "40", "--method", "pipedream", "--step-size", "0.1"}},
		{"localsgd, logistic, GPU clock",
			"objectives: [logistic]\nn: 80\nd: 16\nbatch_size: 4\nstages: [4]\ntime_budget: [2]\nmethods:\n  - name: localsgd\n    local_steps: [2]\n    step_sizes: {values: [0.1]}\ncost: {cost_model: gpu, model: gpt-1.3b, gpu: a100, link: nvlink}\n",
			[]string{"--objective", "logistic", "--n", "80", "--d", "16", "--batch-size", "4", "--stages", "4", "--time-budget", "2", "--method", "localsgd", "--local-steps", "2", "--step-size", "0.1", "--model", "gpt-1.3b", "--gpu", "a100", "--link", "nvlink"}},
		{"pipedream, quadratic, GPU clock at the defaults",
			"objectives: [quadratic]\nn: 120\nd: 16\nbatch_size: 8\nstages: [4]\ntime_budget: [3]\nmethods:\n  - name: pipedream\n    step_sizes: {values: [0.01]}\ncost: {cost_model: gpu}\n",
			[]string{"--objective", "quadratic", "--n", "120", "--d", "16", "--batch-size", "8", "--stages", "4", "--time-budget", "3", "--method", "pipedream", "--step-size", "0.01", "--model", experiments.DefaultGPU.Preset}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec, err := experiments.ParseSpec("one.yaml", []byte("experiment: one\nseed: 1\n"+c.spec))
			if err != nil {
				t.Fatal(err)
			}
			runs := spec.Expand()
			if len(runs) != 1 {
				t.Fatalf("%d runs, want 1", len(runs))
			}
			r := runs[0]
			r.Seed, r.DataSeed = seed, seed
			tabs, err := experiments.Execute(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			rep := trainJSON(t, append(c.flags, "--seed", "7")...)
			curve := rep["curve"].([]any)
			if len(curve) != len(tabs.Curves) || len(curve) < 2 {
				t.Fatalf("train logged %d points, the sweep %d", len(curve), len(tabs.Curves))
			}
			for i, p := range tabs.Curves {
				got := curve[i].(map[string]any)
				if got["loss"] != p.Loss || got["sim_time"] != p.Time || got["block_updates"] != float64(p.BlockUpdates) {
					t.Fatalf("point %d: train %v; sweep loss %v time %v updates %d", i, got, p.Loss, p.Time, p.BlockUpdates)
				}
			}
			row := tabs.Runs[0]
			if rep["final_loss"] != row.FinalLoss || rep["sim_time"] != row.SimTime || rep["total_microbatches"] != float64(row.TotalMicrobatches) {
				t.Errorf("train final loss %v, time %v, N %v; sweep %v, %v, %d", rep["final_loss"], rep["sim_time"], rep["total_microbatches"], row.FinalLoss, row.SimTime, row.TotalMicrobatches)
			}
			if math.IsNaN(row.FinalLoss) || row.Outcome != "ok" {
				t.Errorf("the sweep's run: outcome %s, final loss %v", row.Outcome, row.FinalLoss)
			}
		})
	}
}
