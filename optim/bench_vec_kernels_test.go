package optim

import (
	"fmt"
	"testing"
	"time"

	"github.com/pipelab/pipelab/internal/vec"
	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/objectives/charlm"
	"github.com/pipelab/pipelab/pipeline"
)

// kernelMode is one setting of the kernel switches, applied to all on.
type kernelMode struct {
	name string
	set  func()
}

// allOff is the mode with every kernel off: the plain-Go code of -tags
// purego.
var allOff = kernelMode{"all", func() { vec.Kernels = vec.Features{} }}

// benchKernelModes runs run under every mode in every iteration, in an
// order rotated by one each iteration so that the load of a shared
// machine falls on all alike, each mode running run about 100 ms at a
// time (at least once). Every run must give the final loss of the first,
// to the bit (the kernels' contract). Reported from the process's CPU
// time: on-s/run, the first mode's (all on), and for every other mode its
// time over the all-on time (MODE-off/on).
func benchKernelModes(b *testing.B, modes []kernelMode, run func() float64) {
	all := vec.Kernels
	set := func(m kernelMode) { vec.Kernels = all; m.set() }
	defer set(kernelMode{"on", func() {}})
	set(modes[0])
	c0 := cpuNow(b)
	want := run()
	reps := 1
	if c := cpuNow(b) - c0; c > 0 {
		reps = max(1, int(100*time.Millisecond/c))
	}
	spent := make([]time.Duration, len(modes))
	for it := 0; b.Loop(); it++ {
		for k := range modes {
			j := (k + it) % len(modes)
			set(modes[j])
			c0 := cpuNow(b)
			for range reps {
				if got := run(); got != want {
					b.Fatalf("mode %s: final loss %v, all on %v", modes[j].name, got, want)
				}
			}
			spent[j] += cpuNow(b) - c0
		}
	}
	b.ReportMetric(spent[0].Seconds()/float64(b.N*reps), "on-s/run")
	for j, m := range modes[1:] {
		b.ReportMetric(float64(spent[j+1])/float64(spent[0]), fmt.Sprintf("%s-off/on", m.name))
	}
}

// finalLoss returns a function running obj under m with set and returning
// its final loss.
func finalLoss(b *testing.B, obj objectives.Objective, m Method, set Settings) func() float64 {
	return func() float64 {
		res, err := Run(obj, m, set)
		if err != nil {
			b.Fatal(err)
		}
		return res.FinalLoss
	}
}

func pipeDreamOf(b *testing.B, stages, microbatches int) Method {
	return PipeDream{Timeline: generate(b, "pipedream", pipeline.Shape{Ranks: stages, Microbatches: microbatches})}
}

func rpdOf(stages, microbatches int) Method {
	return RPD{Delays: Uniform{Stages: stages, Delta: DefaultDelta(stages), Microbatches: microbatches}}
}

// BenchmarkVecKernelsEndToEnd times whole replays of the linear
// objectives' figure protocols (docs/reference.md §1.7, each logging 100
// points) with internal/vec's kernels on, with each off in turn
// (vec.Kernels.Disabled: AddBlockDots, the forward; AddScaledRows, the
// backward) and with both off (benchKernelModes). The protocols: the scaling figure's logistic
// regression (n = 600, d = 512, batch 10) under PipeDream at S = 8
// (N = 1583) and S = 128 (N = 1463) and under RPD at S = 128; the
// PD-versus-RPD random quadratic (n = 2000, d = 512, batch 100, S = 8,
// N = 400) under PipeDream and RPD; and the budget figure's tridiagonal
// quadratic (n = 600, d = 512, batch 5, S = 16, N = 1583).
func BenchmarkVecKernelsEndToEnd(b *testing.B) {
	modes := []kernelMode{
		{"on", func() {}},
		{"blockdots", func() { vec.Kernels.Disabled.BlockDots = true }},
		{"scaledrows", func() { vec.Kernels.Disabled.ScaledRows = true }},
		allOff,
	}
	for _, r := range []struct {
		name   string
		obj    func() objectives.Objective
		method func() Method
		step   float64
	}{
		{"logistic/pipedream/S=8", func() objectives.Objective { return logistic(b, 600, 512, 8, 10, objectives.DefaultNoise, 1) },
			func() Method { return pipeDreamOf(b, 8, 1583) }, 1.0 / 128},
		{"logistic/pipedream/S=128", func() objectives.Objective { return logistic(b, 600, 512, 128, 10, objectives.DefaultNoise, 1) },
			func() Method { return pipeDreamOf(b, 128, 1463) }, 1.0 / 512},
		{"logistic/rpd/S=128", func() objectives.Objective { return logistic(b, 600, 512, 128, 10, objectives.DefaultNoise, 1) },
			func() Method { return rpdOf(128, 1463) }, 1.0 / 512},
		{"quadratic/pipedream/S=8", func() objectives.Objective { return quadratic(b, 2000, 512, 8, 100, 1) },
			func() Method { return pipeDreamOf(b, 8, 400) }, 1.0 / 256},
		{"quadratic/rpd/S=8", func() objectives.Objective { return quadratic(b, 2000, 512, 8, 100, 1) },
			func() Method { return rpdOf(8, 400) }, 1.0 / 2048},
		{"tridiagonal/pipedream/S=16", func() objectives.Objective { return tridiagonal(b, 600, 512, 16, 5, 1) },
			func() Method { return pipeDreamOf(b, 16, 1583) }, 1.0 / 1024},
	} {
		b.Run(r.name, func(b *testing.B) {
			benchKernelModes(b, modes, finalLoss(b, r.obj(), r.method(), Settings{StepSize: r.step, Seed: 1}))
		})
	}
}

// BenchmarkLMKernelsEndToEnd times whole replays of the character LM as
// the figures run them (the pipelined passes, every record's training and
// held-out losses) with objectives/charlm's kernels on and with the layer
// norm's off (vec.Kernels.Disabled; of the kernels kept, the one whose
// Gradient and Loss times move least in charlm's
// BenchmarkKernelsEndToEnd), alternated by benchKernelModes. The runs,
// shortened where a figure's are long:
//   - small: the LM of staleness-law, optimizers-under-delay and
//     delay-profiles (E 16, T 16, batch 4, the shipped text): PipeDream at
//     S = 4 with K = 400 and 10 records (staleness-law's quick run), at
//     S = 16 with K = 200 and 2 records (its 1000 and 10), and RPD at S = 4
//     with 100 microbatches and 100 records (delay-profiles' quick run);
//   - shakespeare: charlm.ShakespeareConfig (lm-text, remedies), Adam,
//     PipeDream at S = 4 with 100 microbatches and 2 records (lm-text's
//     4000 and 30, records there about as large a share);
//   - markov: charlm.DefaultConfig on the Markov corpus (lm-markov),
//     PipeDream at S = 4 with 60 microbatches and 2 records (its 297 and
//     30).
func BenchmarkLMKernelsEndToEnd(b *testing.B) {
	off := func(name string, f *bool) kernelMode { return kernelMode{name, func() { *f = true }} }
	modes := []kernelMode{
		{"on", func() {}},
		off("layernorm", &vec.Kernels.Disabled.LayerNorm),
	}
	text := charlm.TinyShakespeare()
	markov, _ := charlm.MarkovCorpus(1, 1<<16)
	small := func(stages int) charlm.Config {
		return charlm.Config{Stages: stages, Embed: 16, Heads: 4, SeqLen: 16, Batch: 4, Seed: 1}
	}
	withStages := func(c charlm.Config, s int) charlm.Config { c.Stages = s; return c }
	sgd := func(step float64, records int) Settings { return Settings{StepSize: step, Seed: 1, LogPoints: records} }
	adam := func(records int) Settings {
		s := sgd(0.0078125, records)
		s.Optimizer = Optimizer{Algorithm: Adam}
		return s
	}
	for _, r := range []struct {
		name   string
		cfg    charlm.Config
		text   []byte
		method func() Method
		set    Settings
	}{
		{"small/pipedream/S=4", small(4), text, func() Method { return pipeDreamOf(b, 4, 400) }, sgd(1.0/16, 10)},
		{"small/pipedream/S=16", small(16), text, func() Method { return pipeDreamOf(b, 16, 200) }, sgd(1.0/64, 2)},
		{"small/rpd/S=4", small(4), text, func() Method { return rpdOf(4, 100) }, sgd(1.0/16, 100)},
		{"shakespeare/pipedream/S=4", withStages(charlm.ShakespeareConfig(), 4), text, func() Method { return pipeDreamOf(b, 4, 100) }, adam(2)},
		{"markov/pipedream/S=4", withStages(charlm.DefaultConfig(), 4), markov, func() Method { return pipeDreamOf(b, 4, 60) }, sgd(0.0625, 2)},
	} {
		b.Run(r.name, func(b *testing.B) {
			lm, err := charlm.New(r.cfg, r.text)
			if err != nil {
				b.Fatal(err)
			}
			benchKernelModes(b, modes, finalLoss(b, lm, r.method(), r.set))
		})
	}
}
