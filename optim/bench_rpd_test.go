package optim

import (
	"testing"
	"time"

	"pipelab/objectives"
	"pipelab/pipeline"
)

// BenchmarkRPDvsPipeDreamS128 times the scaling figure's two asynchronous
// runs at its largest stage count (docs/reference.md §1.7): logistic
// regression, n = 600, d = 512, batch 10, S = 128, PipeDream's N = 1463
// microbatches fitting the 3180-step budget (T = 2N + 2S - 2, §1.2) and
// RPD's K = N·S iterations with δ = ⌊S² - S/2⌋, both logging 100 points.
// The two are interleaved in every iteration so that a busy machine slows
// them alike; rpd/pipedream is the ratio of their times.
func BenchmarkRPDvsPipeDreamS128(b *testing.B) {
	const stages, microbatches = 128, 1463
	obj := logistic(b, 600, 512, stages, 10, objectives.DefaultNoise, 1)
	tl := generate(b, "pipedream", pipeline.Shape{Ranks: stages, Microbatches: microbatches})
	set := Settings{StepSize: 1.0 / 512, Seed: 1}
	rpd := RPD{Delays: Uniform{Stages: stages, Delta: DefaultDelta(stages), Microbatches: microbatches}}
	var pd, rp time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := Run(obj, PipeDream{Timeline: tl}, set); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := Run(obj, rpd, set); err != nil {
			b.Fatal(err)
		}
		pd, rp = pd+t1.Sub(t0), rp+time.Since(t1)
	}
	n := float64(b.N)
	b.ReportMetric(pd.Seconds()/n, "s/pipedream")
	b.ReportMetric(rp.Seconds()/n, "s/rpd")
	b.ReportMetric(float64(rp)/float64(pd), "rpd/pipedream")
}
