package charlm

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
)

// ErrCorpus is wrapped by every error New returns for an unusable corpus.
var ErrCorpus = errors.New("charlm: invalid corpus")

// vocabulary decodes a UTF-8 corpus and returns its vocabulary, the
// sorted set of its distinct runes, and its length in runes, without
// holding the decoded text: a spec's check reads no more of a corpus.
// Invalid UTF-8 is rejected with its byte offset.
func vocabulary(corpus []byte) (vocab []rune, n int, err error) {
	var ascii [utf8.RuneSelf]bool // ASCII runes seen, without a map
	other := map[rune]bool{}
	for off := 0; off < len(corpus); n++ {
		if b := corpus[off]; b < utf8.RuneSelf {
			ascii[b] = true
			off++
			continue
		}
		r, size := utf8.DecodeRune(corpus[off:])
		if r == utf8.RuneError && size == 1 {
			return nil, 0, fmt.Errorf("%w: invalid UTF-8 at byte offset %d", ErrCorpus, off)
		}
		other[r] = true
		off += size
	}
	for r, seen := range ascii {
		if seen {
			vocab = append(vocab, rune(r))
		}
	}
	for r := range other {
		vocab = append(vocab, r)
	}
	slices.Sort(vocab)
	return slices.Clip(vocab), n, nil
}

// encode returns the vocabulary index of each of corpus's n runes; the
// corpus and vocab are vocabulary's input and output.
func encode(corpus []byte, vocab []rune, n int) []int32 {
	var asciiID [utf8.RuneSelf]int32
	otherID := map[rune]int32{}
	for i, r := range vocab {
		if r < utf8.RuneSelf {
			asciiID[r] = int32(i)
		} else {
			otherID[r] = int32(i)
		}
	}
	ids := make([]int32, 0, n)
	for off := 0; off < len(corpus); {
		if b := corpus[off]; b < utf8.RuneSelf {
			ids = append(ids, asciiID[b])
			off++
			continue
		}
		r, size := utf8.DecodeRune(corpus[off:])
		ids = append(ids, otherID[r])
		off += size
	}
	return ids
}
