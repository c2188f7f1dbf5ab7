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
	for off := 0; off < len(corpus); {
		r, size := utf8.DecodeRune(corpus[off:])
		if r == utf8.RuneError && size == 1 {
			return nil, nil, fmt.Errorf("%w: invalid UTF-8 at byte offset %d", ErrCorpus, off)
		}
		runes = append(runes, r)
		off += size
	}
	vocab = slices.Clone(runes)
	slices.Sort(vocab)
	vocab = slices.Compact(vocab)
	ids = make([]int32, len(runes))
	for i, r := range runes {
		j, _ := slices.BinarySearch(vocab, r)
		ids[i] = int32(j)
	}
	return slices.Clip(vocab), ids, nil
}
