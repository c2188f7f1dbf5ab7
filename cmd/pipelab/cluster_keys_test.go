package main

import (
	"context"
	"flag"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/request"
	"github.com/pipelab/pipelab/results"
)

// clusterKeysSpec prices 1F1B at P = 4, M = 8 on A100s under the GPU
// model, with the cost block's extra keys.
func clusterKeysSpec(extra string) string {
	return "experiment: cluster\nmeasure: schedules\nkinds: [1f1b]\nranks: [4]\nmicrobatches: [8]\n" +
		"cost: {cost_model: gpu, model: gpt-1.3b, gpu: a100, link: ib-hdr" + extra + "}\n"
}

// sweepMakespan runs the one run of spec and returns its simulated
// makespan and schedule id.
func sweepMakespan(t *testing.T, spec string) (float64, string) {
	t.Helper()
	s, err := experiments.ParseSpec("s.yaml", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Expand()
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	out, err := experiments.Execute(context.Background(), runs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range out.Schedules {
		if m.Level == results.LevelSimulated {
			return m.Makespan, m.ScheduleID
		}
	}
	t.Fatal("no simulated row")
	return 0, ""
}

// TestClusterKeysPriceAsFlags: the cost block's cluster keys are the
// command line's flags of the same names. A sweep giving them prices 1F1B
// to the very makespan simulate gives with the flags (one resolution,
// experiments.CostSpec.GPUConfig, reached from YAML and from flags); the
// keys change it (tensor parallelism splits each stage's work, so a spec
// without them prices another makespan), and they enter the schedule id
// only when given.
func TestClusterKeysPriceAsFlags(t *testing.T) {
	keys := ", tp: 2, dp: 4, gpus_per_node: 8, node_link: nvlink3, recompute: selective, sequence_parallel: true," +
		" distributed_optimizer: true, overlap_grad_reduce: true"
	flags := []string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--model", "gpt-1.3b", "--gpu", "a100",
		"--link", "ib-hdr", "--tp", "2", "--dp", "4", "--gpus-per-node", "8", "--node-link", "nvlink3", "--recompute", "selective",
		"--sequence-parallel", "--distributed-optimizer", "--overlap-grad-reduce", "--format", "json"}
	fromSpec, id := sweepMakespan(t, clusterKeysSpec(keys))
	var rep struct{ Makespan float64 }
	runJSON(t, flags, &rep)
	t.Logf("makespan %.9g s from the spec's keys, %.9g s from the flags", fromSpec, rep.Makespan)
	if fromSpec != rep.Makespan {
		t.Errorf("makespan %.9g s from the spec's keys, %.9g s from the flags; want equal", fromSpec, rep.Makespan)
	}
	// The makespan leaves out the data-parallel keys (dp and the gradient
	// reduction come after the pipeline drains): the whole configurations
	// agree too.
	spec, err := experiments.ParseSpec("s.yaml", []byte(clusterKeysSpec(keys)))
	if err != nil {
		t.Fatal(err)
	}
	fromKeys, err := spec.Cost.GPUConfig()
	if err != nil {
		t.Fatal(err)
	}
	var p request.PresetFlags
	parseGroup(t, func(fs *flag.FlagSet) { p.Register(fs, "model preset", "") }, slices.Clone(flags[7:len(flags)-2])...)
	fromFlags, err := p.Config()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromKeys, fromFlags) {
		t.Errorf("GPU config from the keys %+v, from the flags %+v; want equal", fromKeys, fromFlags)
	}
	if fromKeys.Parallel.Data != 4 || !fromKeys.Parallel.DistributedOptimizer || !fromKeys.Parallel.OverlapGradReduce {
		t.Errorf("parallelism %+v from the keys: want dp 4, the distributed optimizer, the reduction overlapped", fromKeys.Parallel)
	}
	plain, plainID := sweepMakespan(t, clusterKeysSpec(""))
	if plain == fromSpec {
		t.Errorf("makespan %.9g s with and without the cluster keys: the keys were not read", plain)
	}
	var plainRep struct{ Makespan float64 }
	runJSON(t, slices.Concat(flags[:13], []string{"--format", "json"}), &plainRep)
	t.Logf("without the cluster: %.9g s from the spec, %.9g s from simulate", plain, plainRep.Makespan)
	if plain != plainRep.Makespan {
		t.Errorf("makespan %.9g s from the spec without the keys, %.9g s from simulate without the flags; want equal", plain, plainRep.Makespan)
	}
	if want := "-tp2-dp4-node8-nvlink3-recompute-selective-seqpar-distopt-overlapgrad_"; !strings.Contains(id, want) || strings.Contains(plainID, "tp") {
		t.Errorf("schedule ids %q with the keys, %q without: want %q in the first only", id, plainID, want)
	}
}

// A bad cluster key is refused by the spec's reader, naming the key and
// its line, as the flag of the same name is.
func TestClusterKeyErrors(t *testing.T) {
	for _, tc := range []struct{ extra, want string }{
		{", tp: 16, gpus_per_node: 8, node_link: nvlink3", "s.yaml:6: cost.tp: cost: tensor-parallel 16 is more than the 8 GPUs of a node"},
		{", tp: 3, gpus_per_node: 8, node_link: nvlink3", "s.yaml:6: cost.tp: cost: tensor-parallel 3 does not divide the 8 GPUs of a node"},
		{", tp: -1", "s.yaml:6: cost.tp: want a number of GPUs of at least 1, got -1"},
		{", dp: 1.5", "s.yaml:6: cost.dp: \"1.5\" is not an integer"},
		{", recompute: some", "s.yaml:6: cost.recompute: unknown recomputation \"some\""},
		{", sequence_parallel: true", "s.yaml:6: cost.sequence_parallel: splits along the sequence what tp splits: needs tp above 1"},
		{", tp: 2, distributed_optimizer: true", "s.yaml:6: cost.distributed_optimizer: splits the optimizer state over the dp replicas: needs dp above 1"},
		{", overlap_grad_reduce: true", "s.yaml:6: cost.overlap_grad_reduce: overlaps the gradient reduction of the dp replicas: needs dp above 1"},
		{", gpus_per_node: 8", "s.yaml:6: cost.gpus_per_node: needs the link inside a node (node_link)"},
		{", node_link: warp", "s.yaml:6: cost.node_link: needs the GPUs per node (gpus_per_node)"},
		{", gpus_per_node: 8, node_link: warp", "s.yaml:6: cost.node_link: "},
		{", tp_degree: 2", "tp_degree"},
	} {
		if _, err := experiments.ParseSpec("s.yaml", []byte(clusterKeysSpec(tc.extra))); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.extra, err, tc.want)
		}
	}
	unit := strings.Replace(clusterKeysSpec(", tp: 2"), "cost_model: gpu, model: gpt-1.3b, gpu: a100, link: ib-hdr", "cost_model: unit", 1)
	if _, err := experiments.ParseSpec("s.yaml", []byte(unit)); err == nil || !strings.Contains(err.Error(), "s.yaml:6: cost.tp: needs cost_model: gpu") {
		t.Errorf("tp under the unit model: %v", err)
	}
}
