package charlm

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"unicode/utf8"
)

// The corpus names OpenCorpus knows; any other name is a file's path.
const (
	// CorpusTinyShakespeare is the shipped text (TinyShakespeare), the
	// default.
	CorpusTinyShakespeare = "tinyshakespeare"
	// CorpusMarkov is the generated Markov chain with its known loss
	// floor (MarkovCorpus).
	CorpusMarkov = "markov"
)

// MaxCorpusBytes bounds a user's corpus file: the model keeps 8 bytes
// per character while it tokenizes, so 64 MiB of text costs about half a
// gigabyte, and the file is refused rather than read past this size.
const MaxCorpusBytes = 64 << 20

// OpenCorpus returns the text a corpus name stands for: the shipped Tiny
// Shakespeare for CorpusTinyShakespeare or "", n training characters of
// the Markov chain drawn from seed for CorpusMarkov (MarkovCorpus), and
// otherwise the user's file at that path (ReadCorpus). seed and n matter
// for CorpusMarkov only.
func OpenCorpus(name string, seed uint64, n int) ([]byte, error) {
	switch name {
	case "", CorpusTinyShakespeare:
		return TinyShakespeare(), nil
	case CorpusMarkov:
		text, _ := MarkovCorpus(seed, n)
		return text, nil
	}
	return ReadCorpus(name)
}

// ReadCorpus reads a user's corpus file: UTF-8 text, not empty, at most
// MaxCorpusBytes long. Its errors are one line that names the file and
// wraps ErrCorpus when the text is unusable. Whether the text is long
// enough depends on the model's batch shape, which New checks.
func ReadCorpus(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("charlm: corpus %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxCorpusBytes {
		return nil, fmt.Errorf("%w %s: longer than %d bytes", ErrCorpus, path, MaxCorpusBytes)
	}
	text, err := io.ReadAll(io.LimitReader(f, MaxCorpusBytes+1))
	if err != nil {
		return nil, fmt.Errorf("charlm: corpus %w", err)
	}
	if err := checkText(text); err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrCorpus, path, err)
	}
	return text, nil
}

// UnigramEntropy returns −Σ p(c)·log p(c) in nats over the characters
// (runes) of text: the loss of a model that knows each character's
// frequency and nothing else, the floor an LM must pass to have learnt
// more than the alphabet (3.3128 nats for the shipped text, docs/charlm.md).
func UnigramEntropy(text []byte) float64 {
	counts := map[rune]float64{}
	var n float64
	for _, r := range string(text) {
		counts[r]++
		n++
	}
	var h float64
	for _, c := range counts {
		h -= c / n * math.Log(c/n)
	}
	return h
}

// checkText refuses an empty text, one longer than MaxCorpusBytes and
// invalid UTF-8 (naming the byte offset of the first bad byte).
func checkText(text []byte) error {
	switch {
	case len(text) == 0:
		return errors.New("empty")
	case len(text) > MaxCorpusBytes:
		return fmt.Errorf("longer than %d bytes", MaxCorpusBytes)
	case !utf8.Valid(text):
		return fmt.Errorf("invalid UTF-8 at byte offset %d", invalidOffset(text))
	}
	return nil
}

// invalidOffset returns the byte offset of the first invalid UTF-8
// sequence of text, or len(text) if there is none.
func invalidOffset(text []byte) int {
	for off := 0; off < len(text); {
		r, size := utf8.DecodeRune(text[off:])
		if r == utf8.RuneError && size == 1 {
			return off
		}
		off += size
	}
	return len(text)
}
