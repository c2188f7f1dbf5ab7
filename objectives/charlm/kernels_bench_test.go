package charlm

import (
	"fmt"
	"testing"
	"time"

	"github.com/pipelab/pipelab/internal/vec"
)

// kernelMode is one setting of the kernel switches: all on, one kernel
// off (vec.Kernels.Disabled), or every kernel off (the plain-Go code of
// -tags purego).
type kernelMode struct {
	name string
	set  func()
}

// kernelModes returns the modes BenchmarkKernelsEndToEnd compares, the
// first with every kernel on.
func kernelModes(all vec.Features) []kernelMode {
	off := func(name string, f *bool) kernelMode {
		return kernelMode{name, func() { vec.Kernels = all; *f = true }}
	}
	return []kernelMode{
		{"on", func() { vec.Kernels = all }},
		off("panels", &vec.Kernels.Disabled.Panels),
		off("panel16", &vec.Kernels.Disabled.Panels16),
		off("panel8x16", &vec.Kernels.Disabled.Panels8x16),
		off("addrows", &vec.Kernels.Disabled.AddRows),
		off("layernorm", &vec.Kernels.Disabled.LayerNorm),
		off("attention", &vec.Kernels.Disabled.Attention),
		off("exp", &vec.Kernels.Disabled.Exp),
		off("erf", &vec.Kernels.Disabled.Erf),
		{"all", func() { vec.Kernels = vec.Features{} }},
	}
}

// BenchmarkKernelsEndToEnd times Gradient and Loss of every LM shape a
// shipped figure trains, with every kernel on, with each kernel off in
// turn, and with all off, the modes alternated within every iteration (a
// rotating order, each mode running about 20 ms of calls), so that the
// load of a shared machine falls on all alike. Reported from the
// process's CPU time: on-ns/op, and for each mode its time over the
// all-on time (MODE-off/on). The shapes: ShakespeareConfig (lm-text and
// remedies' LM, S = 4, 8, 16), DefaultConfig on the Markov corpus
// (lm-markov, S = 4), and the small LM of staleness-law,
// optimizers-under-delay and delay-profiles (E 16, T 16, batch 4; S = 4
// and 16).
func BenchmarkKernelsEndToEnd(b *testing.B) {
	markov, _ := MarkovCorpus(1, 1<<16)
	shapes := []struct {
		name string
		cfg  Config
		text []byte
	}{
		{"shakespeare/S=4", withStages(ShakespeareConfig(), 4), TinyShakespeare()},
		{"shakespeare/S=8", withStages(ShakespeareConfig(), 8), TinyShakespeare()},
		{"shakespeare/S=16", withStages(ShakespeareConfig(), 16), TinyShakespeare()},
		{"markov/S=4", withStages(DefaultConfig(), 4), markov},
		{"small/S=4", Config{Stages: 4, Embed: 16, Heads: 4, SeqLen: 16, Batch: 4, Seed: 1}, TinyShakespeare()},
		{"small/S=16", Config{Stages: 16, Embed: 16, Heads: 4, SeqLen: 16, Batch: 4, Seed: 1}, TinyShakespeare()},
	}
	all := vec.Kernels
	defer func() { vec.Kernels = all }()
	for _, sh := range shapes {
		m, err := New(sh.cfg, sh.text)
		if err != nil {
			b.Fatal(err)
		}
		x := m.Init()
		g := make([]float64, m.Dim())
		for _, op := range []struct {
			name string
			f    func(i int)
		}{
			{"Gradient", func(i int) { m.Gradient(g, x, i, nil) }},
			{"Loss", func(int) { m.Loss(x) }},
		} {
			b.Run(sh.name+"/"+op.name, func(b *testing.B) { benchModes(b, kernelModes(all), op.f) })
		}
	}
}

func withStages(c Config, s int) Config { c.Stages = s; return c }

// benchModes runs f under every mode in every iteration, in an order
// rotated by one each iteration, and reports the first mode's CPU time
// per call and every other mode's against it.
func benchModes(b *testing.B, modes []kernelMode, f func(i int)) {
	reset := func() { vec.Kernels.Disabled = vec.Disabled{} }
	modes[0].set()
	start := startCPU()
	f(0)
	reps := 1
	if end := startCPU(); start.ok && end.ok && end.start > start.start {
		reps = max(1, int(20*time.Millisecond/(end.start-start.start)))
	}
	spent := make([]time.Duration, len(modes))
	calls := 0
	for it := 0; b.Loop(); it++ {
		for k := range modes {
			j := (k + it) % len(modes)
			reset()
			modes[j].set()
			c0 := startCPU()
			for r := range reps {
				f(calls + r)
			}
			c1 := startCPU()
			spent[j] += c1.start - c0.start
		}
		calls += reps
	}
	reset()
	modes[0].set()
	if spent[0] <= 0 || calls == 0 {
		return
	}
	b.ReportMetric(float64(spent[0])/float64(calls), "on-ns/op")
	for j, md := range modes[1:] {
		b.ReportMetric(float64(spent[j+1])/float64(spent[0]), fmt.Sprintf("%s-off/on", md.name))
	}
}
