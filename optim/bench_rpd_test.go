package optim

import (
	"testing"
	"time"

	"github.com/pipelab/pipelab/internal/cputime"
	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/pipeline"
)

// BenchmarkRPDvsPipeDreamS128 times the scaling figure's two asynchronous
// runs at its largest stage count (docs/reference.md §1.7): logistic
// regression, n = 600, d = 512, batch 10, S = 128, PipeDream's N = 1463
// microbatches fitting the 3180-step budget (T = 2N + 2S - 2, §1.2) and
// RPD's K = N·S iterations with δ = ⌊S² - S/2⌋, both logging 100 points.
// The two are interleaved in every iteration so that a busy machine slows
// them alike; rpd/pipedream is the ratio of their wall times and
// rpd/pipedream-cpu that of their CPU times (the process's, which the
// other jobs of a shared machine do not lengthen). A third part of every
// iteration makes RPD's delay draws alone, from the same seeded stream
// (K·S = 24 M uniform draws, which fix every RPD result):
// draws/pipedream-cpu is what they cost against PipeDream's whole run.
func BenchmarkRPDvsPipeDreamS128(b *testing.B) {
	const stages, microbatches = 128, 1463
	obj := logistic(b, 600, 512, stages, 10, objectives.DefaultNoise, 1)
	tl := generate(b, "pipedream", pipeline.Shape{Ranks: stages, Microbatches: microbatches})
	set := Settings{StepSize: 1.0 / 512, Seed: 1}
	rpd := RPD{Delays: Uniform{Stages: stages, Delta: DefaultDelta(stages), Microbatches: microbatches}}
	var pd, rp, pdCPU, rpCPU, drawCPU time.Duration
	for b.Loop() {
		c0, _ := cputime.Process()
		t0 := time.Now()
		if _, err := Run(obj, PipeDream{Timeline: tl}, set); err != nil {
			b.Fatal(err)
		}
		c1, _ := cputime.Process()
		t1 := time.Now()
		if _, err := Run(obj, rpd, set); err != nil {
			b.Fatal(err)
		}
		c2, ok := cputime.Process()
		pd, rp = pd+t1.Sub(t0), rp+time.Since(t1)
		drawRPD(b, rpd, set.Seed)
		c3, _ := cputime.Process()
		if ok {
			pdCPU, rpCPU, drawCPU = pdCPU+c1-c0, rpCPU+c2-c1, drawCPU+c3-c2
		}
	}
	n := float64(b.N)
	b.ReportMetric(pd.Seconds()/n, "s/pipedream")
	b.ReportMetric(rp.Seconds()/n, "s/rpd")
	b.ReportMetric(float64(rp)/float64(pd), "rpd/pipedream")
	if pdCPU > 0 {
		b.ReportMetric(pdCPU.Seconds()/n, "cpu-s/pipedream")
		b.ReportMetric(rpCPU.Seconds()/n, "cpu-s/rpd")
		b.ReportMetric(float64(rpCPU)/float64(pdCPU), "rpd/pipedream-cpu")
		b.ReportMetric(float64(drawCPU)/float64(pdCPU), "draws/pipedream-cpu")
	}
}

// drawRPD makes the delay draws of p's run with the given seed, and
// nothing else.
func drawRPD(b *testing.B, p RPD, seed uint64) {
	rng := objectives.NewRand(seed, objectives.StreamSampling)
	it := Iteration{Delays: make([]int, p.Delays.(Uniform).Stages)}
	for k := range p.Delays.Len() {
		if err := p.Delays.Draw(k, &it, rng); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRPDQuadratic times the PD-versus-RPD figure's RPD run
// (docs/reference.md §1.7): the random quadratic, S = 8, n = 2000, d = 512,
// batch 100, K = N·S = 3200 iterations with δ = ⌊S² - S/2⌋ = 60, logging
// 100 points, reported in wall and CPU seconds per run.
func BenchmarkRPDQuadratic(b *testing.B) {
	const stages, microbatches = 8, 400
	obj := quadratic(b, 2000, 512, stages, 100, 1)
	rpd := RPD{Delays: Uniform{Stages: stages, Delta: DefaultDelta(stages), Microbatches: microbatches}}
	set := Settings{StepSize: 1.0 / 2048, Seed: 1}
	var cpu time.Duration
	for b.Loop() {
		c0 := cpuNow(b)
		if _, err := Run(obj, rpd, set); err != nil {
			b.Fatal(err)
		}
		cpu += cpuNow(b) - c0
	}
	if cpu > 0 {
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/rpd")
	}
}
