package optim

import (
	"testing"
	"time"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/pipeline"
)

// benchPipeDream times one PipeDream replay (logging 100 points), the same
// replay logging only its start and end, and the baseline: the bare
// arithmetic of the same number of batch gradients (one per microbatch, a
// forward and a backward over the whole parameter vector plus the gradient
// noise, and the step), with no schedule and no logging. The three are
// interleaved in every iteration so that a busy machine slows them alike,
// and reported as seconds per run and the ratio of replay to baseline,
// with the logged replay's CPU time (the process's, which the other jobs
// of a shared machine do not lengthen as they do the wall clock).
func benchPipeDream(b *testing.B, obj objectives.Objective, stages, microbatches int, gamma float64) {
	tl := generate(b, "pipedream", pipeline.Shape{Ranks: stages, Microbatches: microbatches})
	logged := Settings{StepSize: gamma, Seed: 1}
	unlogged := Settings{StepSize: gamma, Seed: 1, LogEvery: stages * microbatches}
	x, g := obj.Init(), make([]float64, obj.Dim())
	var replay, quiet, bare, replayCPU time.Duration
	iters := 0
	for b.Loop() {
		c0 := cpuNow(b)
		t0 := time.Now()
		if _, err := Run(obj, PipeDream{Timeline: tl}, logged); err != nil {
			b.Fatal(err)
		}
		replayCPU += cpuNow(b) - c0
		t1 := time.Now()
		if _, err := Run(obj, PipeDream{Timeline: tl}, unlogged); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		noise := objectives.NewRand(1, objectives.StreamNoise)
		clear(x)
		for m := 0; m < microbatches; m++ {
			obj.Gradient(g, x, m%obj.Batches(), noise)
			for j, v := range g {
				x[j] -= gamma * v
			}
		}
		t3 := time.Now()
		replay, quiet, bare = replay+t1.Sub(t0), quiet+t2.Sub(t1), bare+t3.Sub(t2)
		iters++
	}
	n := float64(iters)
	b.ReportMetric(replay.Seconds()/n, "s/replay")
	if replayCPU > 0 {
		b.ReportMetric(replayCPU.Seconds()/n, "cpu-s/replay")
	}
	b.ReportMetric(quiet.Seconds()/n, "s/unlogged")
	b.ReportMetric(bare.Seconds()/n, "s/baseline")
	b.ReportMetric(float64(replay)/float64(bare), "replay/baseline")
	b.ReportMetric(float64(quiet)/float64(bare), "unlogged/baseline")
}

// The scaling figure's logistic run (docs/reference.md §1.7): S = 8, n = 600,
// d = 512, batch 10, the 3180-step budget (N = 1583, §1.6), 100 logged
// points.
func BenchmarkPipeDreamLogistic(b *testing.B) {
	benchPipeDream(b, logistic(b, 600, 512, 8, 10, objectives.DefaultNoise, 1), 8, 1583, 1.0/128)
}

// The PD-versus-RPD figure's random quadratic: S = 8, n = 2000, d = 512,
// batch 100, N = 400 (K = 3200 block updates), 100 logged points.
func BenchmarkPipeDreamQuadratic(b *testing.B) {
	benchPipeDream(b, quadratic(b, 2000, 512, 8, 100, 1), 8, 400, 1.0/256)
}
