package optim

import (
	"math"
	"testing"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/pipeline"
)

// With one replica and one local step, LocalSGD's timeline runs the
// microbatches one after another and the replay is plain SGD,
// x ← x - γ∇f_{m mod Batches}(x) for m = 0..N-1 (docs/reference.md §1.5).
func TestLocalSGDOneReplicaOneStepIsSGD(t *testing.T) {
	obj := logistic(t, 48, 15, 3, 6, 0, 2)
	tl := generate(t, "localsgd", pipeline.Shape{Ranks: 3, Microbatches: 11, Replicas: 1, LocalSteps: 1})
	res := mustRun(t, obj, LocalSGD{Timeline: tl}, Settings{StepSize: 0.3})
	x := obj.Init()
	for m := 0; m < 11; m++ {
		sgdStep(obj, x, m%obj.Batches(), 0.3)
	}
	closeVectors(t, "x", res.X, x, 1e-13)
}

// Gradient noise in LocalSGD is drawn as the reference implementation
// draws it (vectozavr/randomized-pipedream, LogisticRegressionObjective.
// backward_stage: σ·N(0, 1) added to each block gradient, per coordinate,
// once per B op) and the step is γ times that noisy gradient, unscaled by
// R. With one replica and one local step each microbatch runs F on stages
// 0..S-1 and then B on stages S-1..0, all at the same point, so the replay
// is SGD whose noise for block s comes from the run's noise stream in that
// backward order; computed here block by block from the noiseless batch
// gradient.
func TestLocalSGDNoisePerBlockBackward(t *testing.T) {
	const S, N, gamma, sigma, seed = 3, 9, 0.2, 0.5, 4
	obj := logistic(t, 48, 15, S, 6, sigma, 2)
	tl := generate(t, "localsgd", pipeline.Shape{Ranks: S, Microbatches: N, Replicas: 1, LocalSteps: 1})
	res := mustRun(t, obj, LocalSGD{Timeline: tl}, Settings{StepSize: gamma, Seed: seed})

	noise := objectives.NewRand(seed, objectives.StreamNoise)
	blocks := obj.Blocks()
	x := obj.Init()
	g := make([]float64, len(x))
	for m := 0; m < N; m++ {
		obj.Gradient(g, x, m%obj.Batches(), nil)
		for s := S - 1; s >= 0; s-- {
			for j := blocks[s]; j < blocks[s+1]; j++ {
				g[j] += sigma * noise.NormFloat64()
			}
		}
		for j := range x {
			x[j] -= gamma * g[j]
		}
	}
	closeVectors(t, "x", res.X, x, 1e-12)
}

// R = S = 3 replicas, H = 2, N = 16: two complete rounds of R·H = 6
// microbatches, each replica running plain SGD on its microbatches
// (m ≡ r mod R, in order) from the last average, the replicas averaged
// after each round, and a trailing partial round of 4 never averaged; the
// result is the replicas' mean. Written out directly as the independent
// computation.
func TestLocalSGDRoundsAndAveraging(t *testing.T) {
	obj := quadratic(t, 60, 9, 3, 5, 7)
	const R, H, N, gamma = 3, 2, 16, 0.02
	tl := generate(t, "localsgd", pipeline.Shape{Ranks: 3, Microbatches: N, Replicas: R, LocalSteps: H})
	res := mustRun(t, obj, LocalSGD{Timeline: tl}, Settings{StepSize: gamma})

	avg := obj.Init()
	for first := 0; first < N; first += R * H {
		replicas := make([][]float64, R)
		for r := range replicas {
			replicas[r] = append([]float64(nil), avg...)
		}
		for m := first; m < min(first+R*H, N); m++ {
			sgdStep(obj, replicas[m%R], m%obj.Batches(), gamma)
		}
		for j := range avg {
			avg[j] = 0
			for _, x := range replicas {
				avg[j] += x[j]
			}
			avg[j] /= R
		}
	}
	closeVectors(t, "mean of replicas", res.X, avg, 1e-12)
	if res.BlockUpdates != N*3 {
		t.Errorf("%d block updates, want N·S = %d", res.BlockUpdates, N*3)
	}
}

// The loss of the replicas' mean, followed by the tracker through every
// update (each replica's move counts 1/R), equals the loss evaluated
// afresh at the same update counts.
func TestLocalSGDTrackedMeanLoss(t *testing.T) {
	obj := logistic(t, 60, 12, 3, 5, 0.5, 3)
	tl := generate(t, "localsgd", pipeline.Shape{Ranks: 3, Microbatches: 20, Replicas: 3, LocalSteps: 2})
	dense := mustRun(t, obj, LocalSGD{Timeline: tl}, Settings{StepSize: 0.1, Seed: 2, LogEvery: 1})
	sparse := mustRun(t, obj, LocalSGD{Timeline: tl}, Settings{StepSize: 0.1, Seed: 2, LogEvery: 6})
	byUpdate := map[int]float64{}
	for _, r := range dense.Records {
		byUpdate[r.Updates] = r.Loss
	}
	for _, r := range sparse.Records {
		if got := byUpdate[r.Updates]; math.Abs(got-r.Loss) > 1e-12*r.Loss {
			t.Errorf("after %d updates: tracked %.15g, fresh %.15g", r.Updates, got, r.Loss)
		}
	}
	identicalVectors := true
	for j := range dense.X {
		identicalVectors = identicalVectors && dense.X[j] == sparse.X[j]
	}
	if !identicalVectors || len(sparse.Records) != 11 {
		t.Errorf("logging changed the run (same x: %v) or %d records, want 60/6+1", identicalVectors, len(sparse.Records))
	}
}
