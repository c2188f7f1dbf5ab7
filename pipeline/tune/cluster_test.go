package tune

import (
	"slices"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// clusterProblem is a 6-layer GPT (embedding, 4 decoder layers, head) on
// 16 A100s in nodes of 8, nvlink3 inside and ib-hdr between them.
func clusterProblem(t *testing.T) ClusterProblem {
	t.Helper()
	a100, _ := cost.LookupGPU("a100")
	nv, _ := cost.LookupLink("nvlink3")
	ib, _ := cost.LookupLink("ib-hdr")
	net := cost.Network{Name: "gpt-small", Blocks: []cost.Block{
		{Kind: cost.Embedding, Count: 1, Hidden: 1024, Vocab: 51200},
		{Kind: cost.Decoder, Count: 4, Hidden: 1024, Heads: 16, FFN: 4096},
		{Kind: cost.Head, Count: 1, Hidden: 1024, Vocab: 51200},
	}}
	return ClusterProblem{
		Config: cost.GPUConfig{Network: net, GPU: a100, Link: nv, InterNode: ib, RanksPerNode: 8, Microbatch: 1, Sequence: 1024, Efficiency: 0.5},
		GPUs:   16, Batch: 32, Schedules: []Schedule{{"1f1b", 1}, {"interleaved-1f1b", 2}},
	}
}

// The splits are every T dividing the node's 8 GPUs, P dividing 16/T and
// at most the 6 layers, D = 16/(T·P) dividing the batch of 32: T 1 with P
// 1, 2, 4; T 2 with P 1, 2, 4; T 4 with P 1, 2, 4; T 8 with P 1, 2.
func TestClusterSplits(t *testing.T) {
	got, err := clusterProblem(t).Splits()
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]int{{1, 1, 16}, {1, 2, 8}, {1, 4, 4}, {2, 1, 8}, {2, 2, 4}, {2, 4, 2}, {4, 1, 4}, {4, 2, 2}, {4, 4, 1}, {8, 1, 2}, {8, 2, 1}}
	var have [][3]int
	for _, s := range got {
		have = append(have, [3]int{s.Tensor, s.Pipeline, s.Data})
	}
	if !slices.Equal(have, want) {
		t.Errorf("splits %v, want %v", have, want)
	}
}

// TuneCluster's choice is the split with the shortest whole step, and each
// split's step is the makespan plus at least nothing (the gradient sync and
// Adam step follow it) with T·P·D = 16 GPUs.
func TestTuneClusterPicksShortestStep(t *testing.T) {
	res, err := TuneCluster(clusterProblem(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range res.Splits {
		if sp.Best == nil {
			continue
		}
		if sp.Iteration.Seconds < res.Best.Iteration.Seconds {
			t.Errorf("split t %d p %d d %d takes %g s, shorter than the chosen %g s", sp.Tensor, sp.Pipeline, sp.Data, sp.Iteration.Seconds, res.Best.Iteration.Seconds)
		}
		if sp.Iteration.GPUs != 16 || sp.Iteration.Seconds < sp.Best.Makespan {
			t.Errorf("split t %d p %d d %d: %+v, makespan %g", sp.Tensor, sp.Pipeline, sp.Data, sp.Iteration, sp.Best.Makespan)
		}
	}
}

// A memory limit below one GPU's share of the weights under every split
// leaves nothing to choose, and the error says why for each split.
func TestTuneClusterNothingFits(t *testing.T) {
	p := clusterProblem(t)
	p.MemoryBytes = 1e6
	_, err := TuneCluster(p)
	if err == nil || !strings.Contains(err.Error(), "t 8 p 2 d 1") {
		t.Errorf("err %v, want one naming every split", err)
	}
	p = clusterProblem(t)
	p.Batch, p.Config.Microbatch = 3, 2 // no D·2 divides 3
	if _, err := TuneCluster(p); err == nil || !strings.Contains(err.Error(), "batch 3") {
		t.Errorf("err %v, want no split dividing the batch", err)
	}
}

// Under post-validation every split's run is ranked and timed by its
// ranks' spans: the chosen run's time per sample is its longest rank span
// over the samples, no more than its makespan's, and the split's step is
// cost.GPUModel.PostValidatedIteration of that run's spans; ZB-H2, whose
// ranks start and end far apart, is among the schedules.
func TestTuneClusterPostValidation(t *testing.T) {
	p := clusterProblem(t)
	p.PostValidation = true
	p.Schedules = append(p.Schedules, Schedule{"zb-h2", 1})
	res, err := TuneCluster(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range res.Splits {
		b := sp.Best
		if b == nil {
			continue
		}
		samples := float64(b.Microbatches * p.Config.Microbatch)
		longest := slices.Max(sim.RankSpans(b.Timeline))
		if b.LongestSpan != longest || b.PerSample*samples != longest || longest > b.Makespan {
			t.Errorf("split t %d p %d d %d: span %g (timeline %g), per sample %g, makespan %g", sp.Tensor, sp.Pipeline, sp.Data,
				b.LongestSpan, longest, b.PerSample, b.Makespan)
		}
		cfg := p.Config
		cfg.Parallel.Tensor, cfg.Parallel.Data = sp.Tensor, sp.Data
		g, err := cost.GPUForTablePartition(cfg, b.Table, b.Partition)
		if err != nil {
			t.Fatal(err)
		}
		want, err := g.(*cost.GPUModel).PostValidatedIteration(b.Table, sim.RankSpans(b.Timeline))
		if err != nil {
			t.Fatal(err)
		}
		if sp.Iteration != want {
			t.Errorf("split t %d p %d d %d: step %+v, want %+v", sp.Tensor, sp.Pipeline, sp.Data, sp.Iteration, want)
		}
	}
}
