package charlm

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestReadCorpusRejects: each unusable file is one line of error that
// names the file and says what is wrong with it.
func TestReadCorpusRejects(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxCorpusBytes+1); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, mention string
		sentinel            error
	}{
		{"empty", write("empty.txt", nil), "empty.txt: empty", ErrCorpus},
		{"invalid UTF-8", write("latin1.txt", []byte("caf\xe9 au lait")), "latin1.txt: invalid UTF-8 at byte offset 3", ErrCorpus},
		{"too long", big, "big.txt: longer than 67108864 bytes", ErrCorpus},
		{"missing", filepath.Join(dir, "missing.txt"), "missing.txt", os.ErrNotExist},
		{"a directory", dir, filepath.Base(dir), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadCorpus(tt.path)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.sentinel != nil && !errors.Is(err, tt.sentinel) {
				t.Errorf("err = %v, want it to wrap %v", err, tt.sentinel)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.mention) || strings.Contains(msg, "\n") {
				t.Errorf("err = %q, want one line mentioning %q", msg, tt.mention)
			}
		})
	}
}

func TestOpenCorpus(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mine.txt")
	mine := []byte("Größe ist relativ.\n")
	if err := os.WriteFile(path, mine, 0o644); err != nil {
		t.Fatal(err)
	}
	markov, _ := MarkovCorpus(3, 500)
	tests := []struct {
		name string
		want []byte
	}{
		{"", TinyShakespeare()},
		{CorpusTinyShakespeare, TinyShakespeare()},
		{CorpusMarkov, markov},
		{path, mine},
	}
	for _, tt := range tests {
		got, err := OpenCorpus(tt.name, 3, 500)
		if err != nil {
			t.Fatalf("%q: %v", tt.name, err)
		}
		if !bytes.Equal(got, tt.want) {
			t.Errorf("%q: %d bytes, not the %d expected", tt.name, len(got), len(tt.want))
		}
	}
}

// FuzzReadCorpus feeds arbitrary bytes through the user-file path: write
// the file, ReadCorpus, New on a small model. Either step may refuse the
// text, always with ErrCorpus and one line; a text both accept is valid
// UTF-8, and the model's splits, vocabulary and losses must be
// consistent with it. testdata/fuzz holds the inputs that once failed.
func FuzzReadCorpus(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte("short"))
	f.Add([]byte("caf\xe9"))
	f.Add(bytes.Repeat([]byte("ab\u00e9\u4e16 "), 20))
	f.Add(TinyShakespeare()[:300])
	cfg := Config{Stages: 3, Embed: 2, Heads: 1, SeqLen: 2, Batch: 1}
	dir := f.TempDir()
	path := filepath.Join(dir, "corpus.txt")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		text, err := ReadCorpus(path)
		if err != nil {
			oneLineCorpusError(t, err)
			if len(data) > 0 && utf8.Valid(data) {
				t.Fatalf("refused valid UTF-8: %v", err)
			}
			return
		}
		if !bytes.Equal(text, data) || !utf8.Valid(text) {
			t.Fatal("ReadCorpus returned other bytes than the file's, or invalid UTF-8")
		}
		m, err := New(cfg, text)
		n := utf8.RuneCount(text)
		if err != nil {
			oneLineCorpusError(t, err)
			// Batch·SeqLen = 2: New needs at least 10·3 - 9 = 21 characters.
			if n >= 21 {
				t.Fatalf("refused %d characters: %v", n, err)
			}
			return
		}
		train, held := m.Characters()
		if train != TrainingCharacters(n) || train+held != n || m.Batches() < 1 || len(m.ValidationBatches()) < 1 {
			t.Fatalf("%d characters split as %d + %d, %d batches, %d validation windows", n, train, held, m.Batches(), len(m.ValidationBatches()))
		}
		distinct := map[rune]bool{}
		for _, r := range string(text) {
			distinct[r] = true
		}
		if len(m.Vocabulary()) != len(distinct) {
			t.Fatalf("vocabulary of %d, text has %d distinct characters", len(m.Vocabulary()), len(distinct))
		}
		// At Init the head's LayerNorm has gain 1 and bias 0, so its output
		// rows have norm at most √E, and every logit is bounded by
		// M = √E·max_j ‖W_{:,j}‖₂ (Cauchy–Schwarz). The cross-entropy
		// logsumexp(l) − l_target then lies within 2M of log V (0 for a
		// one-character vocabulary).
		x := m.Init()
		v := len(distinct)
		w := m.headParams(x).out
		var widest float64
		for j := range v {
			var sq float64
			for i := range cfg.Embed {
				sq += w[i*v+j] * w[i*v+j]
			}
			widest = max(widest, math.Sqrt(sq))
		}
		bound := 2 * math.Sqrt(float64(cfg.Embed)) * widest
		logV := math.Log(float64(v))
		if l, vl := m.Loss(x), m.ValidationLoss(x); math.Abs(l-logV) > bound || math.Abs(vl-logV) > bound {
			t.Fatalf("loss %g, validation loss %g at Init, want log %d = %g within %g", l, vl, v, logV, bound)
		}
	})
}

func oneLineCorpusError(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrCorpus) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %q is not one line wrapping ErrCorpus", err)
	}
}

// TestUnigramEntropyClosedForms: k equally frequent characters have entropy
// ln k; one character has 0; and the count is over runes, not bytes ("éé"
// is one character twice).
func TestUnigramEntropyClosedForms(t *testing.T) {
	for _, c := range []struct {
		text string
		want float64
	}{
		{"aabb", math.Log(2)},
		{"abcabc", math.Log(3)},
		{"zzzz", 0},
		{"ééab", -0.5*math.Log(0.5) - 2*0.25*math.Log(0.25)},
	} {
		if got := UnigramEntropy([]byte(c.text)); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("UnigramEntropy(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
