package optim

import (
	"math"
	"testing"

	"pipelab/pipeline"
)

// With one replica and one local step, LocalSGD's timeline runs the
// microbatches one after another and the replay is plain SGD,
// x ← x - γ∇f_{m mod Batches}(x) for m = 0..N-1 (REFERENCE.md §1.5).
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
