package charlm

import (
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestNewRejects(t *testing.T) {
	text, _ := MarkovCorpus(1, 1000)
	valid := Config{Stages: 3, Embed: 8, Heads: 2, SeqLen: 4, Batch: 2}
	with := func(f func(*Config)) Config {
		c := valid
		f(&c)
		return c
	}
	tests := []struct {
		name     string
		cfg      Config
		corpus   []byte
		sentinel error
		mention  string
	}{
		{"two stages", with(func(c *Config) { c.Stages = 2 }), text, ErrConfig, "Stages = 2"},
		{"zero embed", with(func(c *Config) { c.Embed = 0 }), text, ErrConfig, "Embed = 0"},
		{"zero heads", with(func(c *Config) { c.Heads = 0 }), text, ErrConfig, "Heads = 0"},
		{"embed not divisible", with(func(c *Config) { c.Heads = 3 }), text, ErrConfig, "Embed = 8 is not divisible by Heads = 3"},
		{"zero sequence", with(func(c *Config) { c.SeqLen = 0 }), text, ErrConfig, "SeqLen = 0"},
		{"zero batch", with(func(c *Config) { c.Batch = 0 }), text, ErrConfig, "Batch = 0"},
		{"negative eval batches", with(func(c *Config) { c.EvalBatches = -1 }), text, ErrConfig, "EvalBatches = -1"},
		// Batch·SeqLen = 8: the held-out ⌈n/10⌉ needs 9 characters, so n ≥ 81.
		{"corpus one short", valid, text[:80], ErrCorpus, "80 characters, need at least 81: 72 to train on and 9 held out"},
		{"empty corpus", valid, nil, ErrCorpus, "0 characters"},
		{"workspaces over the limit", with(func(c *Config) { c.BlocksPerStage = 1 << 20 }), text, ErrConfig, "workspaces of 1048576 GPT blocks"},
		{"negative blocks per stage", with(func(c *Config) { c.BlocksPerStage = -1 }), text, ErrConfig, "BlocksPerStage = -1"},
		{"negative validation batches", with(func(c *Config) { c.ValidationBatches = -2 }), text, ErrConfig, "ValidationBatches = -2"},
		{"invalid UTF-8", valid, []byte("abcdéf\xffghijklmnop"), ErrCorpus, "byte offset 7"},
		{"truncated rune", valid, []byte("abcdefghijklmnop\xc3"), ErrCorpus, "byte offset 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg, tt.corpus)
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("err = %v, want %v", err, tt.sentinel)
			}
			if check := Check(tt.cfg, tt.corpus); check == nil || check.Error() != err.Error() {
				t.Errorf("Check = %v, want New's error %v", check, err)
			}
			if !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("err = %q, want it to mention %q", err, tt.mention)
			}
		})
	}
}

// TestLayout checks Dim, Blocks and Batches against parameter counts
// derived by hand: the embedding holds (V + T)·E, a GPT block
// 2·2E (two LayerNorms) + 3E² + 3E (QKV) + E² + E (output projection) +
// 4E² + 4E + 4E² + E (MLP) = 12E² + 13E, and the head 2E + E·V.
func TestLayout(t *testing.T) {
	corpus := []byte(strings.Repeat("héllo wörld ", 20)) // 240 characters, 9 distinct
	cfg := Config{Stages: 5, Embed: 8, Heads: 4, SeqLen: 7, Batch: 3}
	m, err := New(cfg, corpus)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(m.Vocabulary()), " dhlorwéö"; got != want {
		t.Errorf("vocabulary %q, want %q", got, want)
	}
	const v, e, seq = 9, 8, 7
	sizes := []int{(v + seq) * e, 12*e*e + 13*e, 12*e*e + 13*e, 12*e*e + 13*e, 2*e + e*v}
	want := []int{0}
	for _, s := range sizes {
		want = append(want, want[len(want)-1]+s)
	}
	if got := m.Blocks(); !slices.Equal(got, want) {
		t.Errorf("Blocks = %v, want %v", got, want)
	}
	if m.Dim() != want[len(want)-1] {
		t.Errorf("Dim = %d, want %d", m.Dim(), want[len(want)-1])
	}
	// ⌊9·240/10⌋ = 216 training characters, 24 held out.
	if train, held := m.Characters(); train != 216 || held != 24 {
		t.Errorf("Characters = %d, %d, want 216, 24", train, held)
	}
	// (216 - 1) / (3·7) = 10 whole batches.
	if m.Batches() != 10 {
		t.Errorf("Batches = %d, want 10", m.Batches())
	}
	// Eight evaluation batches spread as i·10/8.
	if got, want := m.EvalBatches(), []int{0, 1, 2, 3, 5, 6, 7, 8}; !slices.Equal(got, want) {
		t.Errorf("EvalBatches = %v, want %v", got, want)
	}
	// (24 - 1) / (3·7) = 1 held-out window.
	if got := m.ValidationBatches(); !slices.Equal(got, []int{0}) {
		t.Errorf("ValidationBatches = %v, want [0]", got)
	}
}

// TestInitialLoss: with N(0, 0.02²) head weights over unit-variance
// normalised features the logits have sd 0.02·√E = 0.16 at E = 64, so the
// loss is that of a uniform prediction, log V, plus about sd²/2 ≈ 0.013.
func TestInitialLoss(t *testing.T) {
	text, _ := MarkovCorpus(1, 20_000)
	cfg := DefaultConfig()
	cfg.EvalBatches = 2
	m, err := New(cfg, text)
	if err != nil {
		t.Fatal(err)
	}
	x := m.Init()
	want := math.Log(float64(len(m.Vocabulary())))
	if got := m.Loss(x); math.Abs(got-want) > 0.05 {
		t.Errorf("initial loss %.4f, want log %d = %.4f within 0.05", got, len(m.Vocabulary()), want)
	}
	if !slices.Equal(x, m.Init()) {
		t.Error("Init is not deterministic")
	}
	cfg.Seed = 2
	other, _ := New(cfg, text)
	if slices.Equal(x, other.Init()) {
		t.Error("seeds 1 and 2 gave the same initial point")
	}
}

// TestGradientIsAPureFunction: the gradient of batch b depends on x and b
// only, not on earlier calls, on which Model computes it (Clone), or on b
// being taken modulo Batches.
func TestGradientIsAPureFunction(t *testing.T) {
	text, _ := MarkovCorpus(2, 400)
	m, err := New(tinyConfig(), text)
	if err != nil {
		t.Fatal(err)
	}
	x := perturbedPoint(m, 3)
	grad := func(m *Model, b int) []float64 {
		g := make([]float64, m.Dim())
		m.Gradient(g, x, b, nil)
		return g
	}
	first := grad(m, 2)
	other := grad(m, 5)
	if slices.Equal(first, other) {
		t.Fatal("batches 2 and 5 gave the same gradient")
	}
	if !slices.Equal(first, grad(m, 2)) {
		t.Error("batch 2's gradient changed after computing batch 5's")
	}
	if !slices.Equal(first, grad(m, 2+m.Batches())) {
		t.Error("batch 2 + Batches differs from batch 2")
	}
	if !slices.Equal(first, grad(m.Clone(), 2)) {
		t.Error("a Clone gives a different gradient")
	}
}

// TestClonesInParallel runs clones from several goroutines (meaningful
// under -race) and compares with the sequential result.
func TestClonesInParallel(t *testing.T) {
	text, _ := MarkovCorpus(2, 400)
	m, err := New(tinyConfig(), text)
	if err != nil {
		t.Fatal(err)
	}
	x := perturbedPoint(m, 3)
	want := make([][]float64, 4)
	for b := range want {
		want[b] = make([]float64, m.Dim())
		m.Gradient(want[b], x, b, nil)
	}
	got := make([][]float64, len(want))
	var wg sync.WaitGroup
	for b := range got {
		c := m.Clone()
		wg.Go(func() {
			got[b] = make([]float64, c.Dim())
			c.Gradient(got[b], x, b, nil)
		})
	}
	wg.Wait()
	for b := range got {
		if !slices.Equal(got[b], want[b]) {
			t.Errorf("batch %d: parallel clone's gradient differs", b)
		}
	}
}

func TestGradientDoesNotAllocate(t *testing.T) {
	text, _ := MarkovCorpus(2, 400)
	m, err := New(tinyConfig(), text)
	if err != nil {
		t.Fatal(err)
	}
	x := m.Init()
	g := make([]float64, m.Dim())
	if n := testing.AllocsPerRun(10, func() { m.Gradient(g, x, 1, nil) }); n != 0 {
		t.Errorf("Gradient allocates %v times per call", n)
	}
	if n := testing.AllocsPerRun(10, func() { m.Loss(x) }); n != 0 {
		t.Errorf("Loss allocates %v times per call", n)
	}
}
