package optim

import (
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/pipelab/pipelab/internal/cputime"
	"github.com/pipelab/pipelab/internal/vec"
	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/pipeline"
)

// BenchmarkReplayGFLOPS puts a PipeDream replay beside gonum's kernels on
// the same shapes, in the same iterations, for two protocols of
// docs/reference.md §1.7, each logging only its first and last point:
// logistic (S = 8, n = 600, d = 512, batch 10, N = 1583: blocks of 10 × 64)
// and the PD-versus-RPD random quadratic (S = 8, n = 2000, d = 512, batch
// 100, N = 400: blocks of 100 × 64). Each of the N·S forwards and backwards
// works on one batch's block: the forward adds X_{b,s}·x_s to the
// activation, the backward forms X_{b,s}ᵀr, and the update is
// x_s ← x_s − γg. The flops counted are those three, 2·(2·batch·64 + 64)
// per block and microbatch (a multiply and an add each), not the L2 term,
// the noise or the output gradient, so the replay's rate is a lower bound
// of its arithmetic rate.
//
// Reported, from the process's CPU time (the wall clock of a shared
// machine measures the other jobs): the replay's GFLOP/s; gonum's, running
// the same counts of blas64.Gemv (no transpose, then transposed) and
// blas64.Axpy on the same batches' blocks; and pipelab's forward kernel
// (vec.AddBlockDots, which Linear.Forward runs) against gonum's Gemv and
// against one blas64.Dot per row on the forward's shape.
func BenchmarkReplayGFLOPS(b *testing.B) {
	b.Run("logistic", func(b *testing.B) {
		obj := logistic(b, 600, 512, 8, 10, objectives.DefaultNoise, 1)
		benchReplayGFLOPS(b, obj, 1583, 10, 1.0/128)
	})
	b.Run("quadratic", func(b *testing.B) {
		benchReplayGFLOPS(b, quadratic(b, 2000, 512, 8, 100, 1), 400, 100, 1.0/2048)
	})
}

func benchReplayGFLOPS(b *testing.B, obj *objectives.Linear, microbatches, batch int, gamma float64) {
	const stages = 8
	n, d := obj.Data().Rows, obj.Dim()
	w := d / stages
	tl := generate(b, "pipedream", pipeline.Shape{Ranks: stages, Microbatches: microbatches})
	set := Settings{StepSize: gamma, Seed: 1, LogEvery: stages * microbatches}
	// Block-major copies of every batch's blocks, as Linear keeps them.
	x := obj.Data().X
	cols := make([][]float64, stages)
	for s := range cols {
		for i := 0; i < n; i++ {
			cols[s] = append(cols[s], x[i*d+s*w:i*d+(s+1)*w]...)
		}
	}
	act, r, xs, g := make([]float64, batch), make([]float64, batch), make([]float64, w), make([]float64, w)
	for i := range r {
		r[i] = 1 / float64(i+1)
	}
	for j := range xs {
		xs[j] = 1 / float64(j+3)
	}
	block := func(s, m int) blas64.General {
		off := (m % (n / batch)) * batch * w
		return blas64.General{Rows: batch, Cols: w, Stride: w, Data: cols[s][off : off+batch*w]}
	}
	vr, vx, vg := blas64.Vector{N: batch, Inc: 1, Data: r}, blas64.Vector{N: w, Inc: 1, Data: xs}, blas64.Vector{N: w, Inc: 1, Data: g}
	va := blas64.Vector{N: batch, Inc: 1, Data: act}
	var replay, gonum, fwdOurs, fwdGemv, fwdDot time.Duration
	for b.Loop() {
		c0 := cpuNow(b)
		if _, err := Run(obj, PipeDream{Timeline: tl}, set); err != nil {
			b.Fatal(err)
		}
		c1 := cpuNow(b)
		for m := 0; m < microbatches; m++ {
			for s := 0; s < stages; s++ {
				a := block(s, m)
				blas64.Gemv(blas.NoTrans, 1, a, vx, 1, va)
				blas64.Gemv(blas.Trans, 1, a, vr, 0, vg)
				blas64.Axpy(-gamma, vg, vx)
			}
		}
		c2 := cpuNow(b)
		for m := 0; m < microbatches; m++ {
			for s := 0; s < stages; s++ {
				vec.AddBlockDots(act, cols[s:s+1], (m%(n/batch))*batch, [][]float64{xs})
			}
		}
		c3 := cpuNow(b)
		for m := 0; m < microbatches; m++ {
			for s := 0; s < stages; s++ {
				blas64.Gemv(blas.NoTrans, 1, block(s, m), vx, 1, va)
			}
		}
		c4 := cpuNow(b)
		for m := 0; m < microbatches; m++ {
			for s := 0; s < stages; s++ {
				rows := block(s, m).Data
				for i := range act {
					act[i] += blas64.Dot(blas64.Vector{N: w, Inc: 1, Data: rows[i*w : (i+1)*w]}, vx)
				}
			}
		}
		c5 := cpuNow(b)
		replay, gonum, fwdOurs, fwdGemv, fwdDot = replay+c1-c0, gonum+c2-c1, fwdOurs+c3-c2, fwdGemv+c4-c3, fwdDot+c5-c4
	}
	if replay == 0 {
		b.Skip("no process CPU time on this platform")
	}
	flops := float64(b.N * microbatches * stages * 2 * (2*batch*w + w))
	b.ReportMetric(flops/replay.Seconds()/1e9, "replay-GFLOP/s")
	b.ReportMetric(flops/gonum.Seconds()/1e9, "gonum-GFLOP/s")
	b.ReportMetric(replay.Seconds()/float64(b.N), "cpu-s/replay")
	b.ReportMetric(float64(fwdOurs)/float64(fwdGemv), "forward/gemv")
	b.ReportMetric(float64(fwdOurs)/float64(fwdDot), "forward/dot")
}

// cpuNow returns the process's CPU time, or zero where it is not known.
func cpuNow(b *testing.B) time.Duration {
	t, _ := cputime.Process()
	return t
}
