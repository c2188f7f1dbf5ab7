package optim

import (
	"testing"
	"time"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// benchAgainst times each of the runs against the first, interleaved in
// every iteration so that a busy machine slows them alike, and reports
// seconds per run and each run's ratio to the first.
func benchAgainst(b *testing.B, obj objectives.Objective, names []string, methods []Method, sets []Settings) {
	spent := make([]time.Duration, len(methods))
	iters := 0
	for b.Loop() {
		for i, m := range methods {
			t0 := time.Now()
			if _, err := Run(obj, m, sets[i]); err != nil {
				b.Fatal(err)
			}
			spent[i] += time.Since(t0)
		}
		iters++
	}
	for i, name := range names {
		b.ReportMetric(spent[i].Seconds()/float64(iters), "s/"+name)
		if i > 0 {
			b.ReportMetric(float64(spent[i])/float64(spent[0]), name+"/"+names[0])
		}
	}
}

// Each optimizer's PipeDream replay against plain SGD's on the scaling
// figure's logistic protocol (S = 8, n = 600, d = 512, batch 10, N = 1583,
// K = 12664 block updates, 100 logged points; docs/reference.md §1.7).
func BenchmarkOptimizersLogistic(b *testing.B) {
	obj := logistic(b, 600, 512, 8, 10, objectives.DefaultNoise, 1)
	tl := generate(b, "pipedream", pipeline.Shape{Ranks: 8, Microbatches: 1583})
	var names []string
	var methods []Method
	var sets []Settings
	for _, alg := range Algorithms {
		opt := Optimizer{Algorithm: alg, Momentum: 0.9}
		if alg == AdamW {
			opt.WeightDecay = 0.01
		}
		names = append(names, string(alg))
		methods = append(methods, PipeDream{Timeline: tl})
		sets = append(sets, Settings{StepSize: 1.0 / 128, Seed: 1, Optimizer: opt})
	}
	benchAgainst(b, obj, names, methods, sets)
}

// The remedies against PipeDream on the same protocol, plain SGD.
func BenchmarkRemediesLogistic(b *testing.B) {
	obj := logistic(b, 600, 512, 8, 10, objectives.DefaultNoise, 1)
	tl := generate(b, "pipedream", pipeline.Shape{Ranks: 8, Microbatches: 1583})
	methods := []Method{PipeDream{Timeline: tl}, PipeDreamNoStash{Timeline: tl}, TwoBW{Timeline: tl},
		PipeMare{Timeline: tl, Decay: DefaultPipeMareDecay}, Predict{Timeline: tl}, DelayCompensation{Timeline: tl, Lambda: DefaultDCLambda}}
	names := make([]string, len(methods))
	sets := make([]Settings, len(methods))
	for i, m := range methods {
		names[i], sets[i] = m.Name(), Settings{StepSize: 1.0 / 128, Seed: 1}
	}
	benchAgainst(b, obj, names, methods, sets)
}

// What "pipelab train --kind zb-h1 --method pd" replays against the
// default PipeDream grid: the same logistic protocol and N, the ZB-H1
// flush table timed by the unit-cost event simulation (split backwards:
// twice the backward events) and replayed asynchronously.
func BenchmarkZBH1AgainstPipeDream(b *testing.B) {
	obj := logistic(b, 600, 512, 8, 10, objectives.DefaultNoise, 1)
	pd := generate(b, "pipedream", pipeline.Shape{Ranks: 8, Microbatches: 1583})
	tab, err := pipeline.Generate("zb-h1", pipeline.Shape{Ranks: 8, Microbatches: 1583})
	if err != nil {
		b.Fatal(err)
	}
	zb, err := sim.Simulate(tab, cost.Unit{}, sim.Options{})
	if err != nil {
		b.Fatal(err)
	}
	set := Settings{StepSize: 1.0 / 128, Seed: 1}
	benchAgainst(b, obj, []string{"pd", "zb-h1"}, []Method{PipeDream{Timeline: pd}, PipeDream{Timeline: zb}}, []Settings{set, set})
}
