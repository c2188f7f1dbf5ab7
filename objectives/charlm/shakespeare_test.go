package charlm

import (
	"crypto/md5"
	"encoding/hex"
	"math"
	"testing"
)

// TestTinyShakespeare checks the decompressed text against the figures of
// data/README.md, taken from the original file (md5sum and a count of its
// distinct characters).
func TestTinyShakespeare(t *testing.T) {
	text := TinyShakespeare()
	if len(text) != 1_115_394 {
		t.Errorf("%d bytes, want 1,115,394", len(text))
	}
	sum := md5.Sum(text)
	if got := hex.EncodeToString(sum[:]); got != "6fb458f1232090904fb40fe944165e91" {
		t.Errorf("md5 %s, want 6fb458f1232090904fb40fe944165e91", got)
	}
	distinct := map[rune]bool{}
	for _, r := range string(text) {
		distinct[r] = true
	}
	if len(distinct) != 65 {
		t.Errorf("%d distinct characters, want 65", len(distinct))
	}
	text[0] ^= 1
	if again := TinyShakespeare(); again[0] == text[0] {
		t.Error("TinyShakespeare returned a shared slice: changing one call's text changed the next")
	}
}

// TestTinyShakespeareUnigramEntropy: docs/reference.md §6 gives the
// unigram entropy of the text's characters as about 3.3 nats; a model
// that predicts each character from its frequency alone scores it, so it
// is the bar a trained model must clear.
func TestTinyShakespeareUnigramEntropy(t *testing.T) {
	h := UnigramEntropy(TinyShakespeare())
	t.Logf("unigram entropy %.4f nats per character", h)
	if math.Abs(h-3.3) > 0.05 {
		t.Errorf("unigram entropy %.4f nats, want about 3.3", h)
	}
}

// TestTinyShakespeareSplit: New holds out the last ⌈n/10⌉ characters, the
// split of nanoGPT's shakespeare_char (train = data[:int(n·0.9)]).
func TestTinyShakespeareSplit(t *testing.T) {
	m, err := New(Config{Stages: 3, Embed: 4, Heads: 1, SeqLen: 8, Batch: 2}, TinyShakespeare())
	if err != nil {
		t.Fatal(err)
	}
	// int(1115394·0.9) = int(1003854.6) = 1003854.
	train, held := m.Characters()
	if train != 1_003_854 || held != 111_540 {
		t.Errorf("Characters = %d, %d, want 1003854, 111540", train, held)
	}
	if len(m.Vocabulary()) != 65 {
		t.Errorf("vocabulary of %d characters, want 65", len(m.Vocabulary()))
	}
}
