package charlm

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
)

// ErrCorpus is wrapped by every error New returns for an unusable corpus.
var ErrCorpus = errors.New("charlm: invalid corpus")

// tokenize decodes a UTF-8 corpus into characters (runes). The vocabulary
// is the sorted set of distinct runes; ids[i] is the vocabulary index of
// the corpus's i-th rune. Invalid UTF-8 is rejected with its byte offset.
func tokenize(corpus []byte) (vocab []rune, ids []int32, err error) {
	runes := make([]rune, 0, len(corpus))
	var ascii [utf8.RuneSelf]bool // ASCII runes seen, without a map
	other := map[rune]bool{}
	for off := 0; off < len(corpus); {
		r, size := utf8.DecodeRune(corpus[off:])
		if r == utf8.RuneError && size == 1 {
			return nil, nil, fmt.Errorf("%w: invalid UTF-8 at byte offset %d", ErrCorpus, off)
		}
		if r < utf8.RuneSelf {
			ascii[r] = true
		} else {
			other[r] = true
		}
		runes = append(runes, r)
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
	var asciiID [utf8.RuneSelf]int32
	otherID := make(map[rune]int32, len(other))
	for i, r := range vocab {
		if r < utf8.RuneSelf {
			asciiID[r] = int32(i)
		} else {
			otherID[r] = int32(i)
		}
	}
	ids = make([]int32, len(runes))
	for i, r := range runes {
		if r < utf8.RuneSelf {
			ids[i] = asciiID[r]
		} else {
			ids[i] = otherID[r]
		}
	}
	return slices.Clip(vocab), ids, nil
}
