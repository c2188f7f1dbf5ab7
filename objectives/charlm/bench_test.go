package charlm

import (
	"fmt"
	"github.com/pipelab/pipelab/internal/cputime"
	"testing"
	"time"
)

// benchCorpora are the corpora the benchmarks compare: 65536 training
// characters of the Markov chain (vocabulary 24) and the shipped text
// (vocabulary 65), whose larger vocabulary widens the embedding and the
// head.
var benchCorpora = []struct {
	name string
	text func() []byte
}{
	{"markov", func() []byte { t, _ := MarkovCorpus(1, 1<<16); return t }},
	{"tinyshakespeare", TinyShakespeare},
}

// BenchmarkGradient times one Gradient call at the default configuration
// (embed 64, 4 heads, sequence 32, batch 16) for S = 4 and S = 8 on each
// corpus.
func BenchmarkGradient(b *testing.B) {
	for _, c := range benchCorpora {
		text := c.text()
		for _, stages := range []int{4, 8} {
			b.Run(fmt.Sprintf("%s/S=%d", c.name, stages), func(b *testing.B) {
				cfg := DefaultConfig()
				cfg.Stages = stages
				m, err := New(cfg, text)
				if err != nil {
					b.Fatal(err)
				}
				x := m.Init()
				g := make([]float64, m.Dim())
				b.ReportAllocs()
				cpu := startCPU()
				for i := 0; b.Loop(); i++ {
					m.Gradient(g, x, i, nil)
				}
				cpu.report(b)
			})
		}
	}
}

// BenchmarkLoss times one Loss call (DefaultEvalBatches forward passes)
// and one ValidationLoss call (every held-out window) at the default
// configuration on each corpus.
func BenchmarkLoss(b *testing.B) {
	for _, c := range benchCorpora {
		m, err := New(DefaultConfig(), c.text())
		if err != nil {
			b.Fatal(err)
		}
		x := m.Init()
		for _, l := range []struct {
			name string
			f    func([]float64) float64
		}{{"Loss", m.Loss}, {"ValidationLoss", m.ValidationLoss}} {
			b.Run(c.name+"/"+l.name, func(b *testing.B) {
				b.ReportAllocs()
				cpu := startCPU()
				for b.Loop() {
					l.f(x)
				}
				cpu.report(b)
			})
		}
	}
}

// BenchmarkNew times building the model on each corpus: tokenizing the
// text, splitting it and allocating the workspaces.
func BenchmarkNew(b *testing.B) {
	for _, c := range benchCorpora {
		text := c.text()
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := New(DefaultConfig(), text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheck times Check, which a spec's validation calls for every
// stage count of an LM spec, on each corpus. Run beside BenchmarkNew
// (-bench 'Check|New'), which also encodes the text and allocates the
// workspaces: the ratio is what Check saves by reading only the corpus's
// vocabulary and length.
func BenchmarkCheck(b *testing.B) {
	for _, c := range benchCorpora {
		text := c.text()
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Check(DefaultConfig(), text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// cpuClock measures the process CPU time spent in a benchmark loop: the
// machine is shared, and CPU time per call varies far less with the load
// than wall-clock time does. The loop allocates nothing, so no garbage
// collector runs inside it.
type cpuClock struct {
	start time.Duration
	ok    bool
}

func startCPU() cpuClock {
	t, ok := cputime.Process()
	return cpuClock{start: t, ok: ok}
}

func (c cpuClock) report(b *testing.B) {
	end, ok := cputime.Process()
	if c.ok && ok && b.N > 0 {
		b.ReportMetric(float64(end-c.start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkRemediesShape times Gradient and Loss at the small LM the
// remedies figure trained until issue 24 (every LM figure now trains
// ShakespeareConfig, which BenchmarkKernelsEndToEnd times): embed 16, 4 heads, sequence 16, batch 4,
// on the shipped text, for S = 4, 8 and 16 (2, 6 and 14 GPT blocks), where
// the matrices are small and every kernel's overhead shows.
func BenchmarkRemediesShape(b *testing.B) {
	text := TinyShakespeare()
	for _, stages := range []int{4, 8, 16} {
		cfg := Config{Stages: stages, Embed: 16, Heads: 4, SeqLen: 16, Batch: 4, Seed: 1}
		m, err := New(cfg, text)
		if err != nil {
			b.Fatal(err)
		}
		x := m.Init()
		g := make([]float64, m.Dim())
		b.Run(fmt.Sprintf("Gradient/S=%d", stages), func(b *testing.B) {
			cpu := startCPU()
			for i := 0; b.Loop(); i++ {
				m.Gradient(g, x, i, nil)
			}
			cpu.report(b)
		})
		b.Run(fmt.Sprintf("Loss/S=%d", stages), func(b *testing.B) {
			cpu := startCPU()
			for b.Loop() {
				m.Loss(x)
			}
			cpu.report(b)
		})
	}
}
