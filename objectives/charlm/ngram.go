package charlm

import (
	"fmt"
	"math"
	"sync"
)

// CountModels are the held-out losses, in nats per character, of the
// character count models of a corpus: the reference levels an LM's
// validation loss is read against (docs/charlm.md, "Count models"). A
// unigram model knows each character's frequency, a bigram model the
// character before, a trigram model the two before; an LM below the
// trigram predicts from more context than two characters.
//
// The counts come from the training split only (the first
// TrainingCharacters(n) characters), and the losses are the mean
// −log p(c_i | c_{i−2}, c_{i−1}) over the held-out characters i ≥ 2 of the
// held-out split (contexts from the held-out text itself). Smoothing is
// interpolated Witten–Bell, which has no parameter to tune: the unigram is
// add-one over the corpus's vocabulary V, p₁(c) = (n(c) + 1)/(N + V); each
// higher order mixes its counts with the order below,
// p(c | h) = (n(h, c) + t(h)·p_lower(c | h′))/(n(h) + t(h)), where n(h) is
// the number of times h is followed by a character in the training text,
// t(h) the number of distinct characters that follow it, and h′ drops h's
// oldest character; a context never seen (n(h) = 0) takes p_lower.
type CountModels struct {
	Unigram, Bigram, Trigram float64
	// Predicted is the number of held-out characters the means are over.
	Predicted int
}

// CountModelLosses returns the count models' held-out losses on corpus,
// split as New splits it. It refuses invalid UTF-8 and a corpus whose
// held-out split has fewer than three characters, wrapping ErrCorpus.
func CountModelLosses(corpus []byte) (CountModels, error) {
	vocab, n, err := vocabulary(corpus)
	if err != nil {
		return CountModels{}, err
	}
	cut := TrainingCharacters(n)
	if cut < 3 || n-cut < 3 {
		return CountModels{}, fmt.Errorf("%w: %d characters, need at least 3 in each split for the count models", ErrCorpus, n)
	}
	ids := encode(corpus, vocab, n)
	c := countNGrams(ids[:cut], len(vocab))
	held := ids[cut:]
	var uni, bi, tri float64
	for i := 2; i < len(held); i++ {
		a, b, x := held[i-2], held[i-1], held[i]
		p1 := c.unigram(x)
		p2 := c.bigram(b, x, p1)
		p3 := c.trigram(a, b, x, p2)
		uni -= math.Log(p1)
		bi -= math.Log(p2)
		tri -= math.Log(p3)
	}
	k := float64(len(held) - 2)
	return CountModels{Unigram: uni / k, Bigram: bi / k, Trigram: tri / k, Predicted: len(held) - 2}, nil
}

// TinyShakespeareCountModels returns CountModelLosses of the shipped
// text, computed once per process (about 0.1 s).
func TinyShakespeareCountModels() CountModels { return tinyShakespeareCountModels() }

var tinyShakespeareCountModels = sync.OnceValue(func() CountModels {
	c, err := CountModelLosses(TinyShakespeare())
	if err != nil {
		panic("charlm: the shipped text's count models: " + err.Error())
	}
	return c
})

// nGramCounts are a training text's counts: n(c), n(b, c) and
// n(a, b, c), with each context's total n(h) and number of distinct
// successors t(h), keyed by the characters' vocabulary indices.
type nGramCounts struct {
	vocab, total int
	one          []int
	two, three   map[int64]int
	ctx1, ctx2   map[int64]context
}

// context is a context's count n(h) and its distinct successors t(h).
type context struct{ n, types int }

func countNGrams(ids []int32, vocab int) nGramCounts {
	c := nGramCounts{vocab: vocab, total: len(ids), one: make([]int, vocab),
		two: map[int64]int{}, three: map[int64]int{}, ctx1: map[int64]context{}, ctx2: map[int64]context{}}
	for i, x := range ids {
		c.one[x]++
		if i >= 1 {
			c.see(c.two, c.ctx1, c.key(ids[i-1]), x)
		}
		if i >= 2 {
			c.see(c.three, c.ctx2, c.key(ids[i-2], ids[i-1]), x)
		}
	}
	return c
}

// key numbers a context of one or two characters.
func (c nGramCounts) key(h ...int32) int64 {
	k := int64(0)
	for _, x := range h {
		k = k*int64(c.vocab) + int64(x)
	}
	return k
}

// see counts successor x of context h.
func (c nGramCounts) see(grams map[int64]int, ctx map[int64]context, h int64, x int32) {
	g := h*int64(c.vocab) + int64(x)
	s := ctx[h]
	if grams[g] == 0 {
		s.types++
	}
	s.n++
	grams[g]++
	ctx[h] = s
}

func (c nGramCounts) unigram(x int32) float64 {
	return float64(c.one[x]+1) / float64(c.total+c.vocab)
}

func (c nGramCounts) bigram(b, x int32, lower float64) float64 {
	return wittenBell(c.two, c.ctx1, c.key(b), int64(x), int64(c.vocab), lower)
}

func (c nGramCounts) trigram(a, b, x int32, lower float64) float64 {
	return wittenBell(c.three, c.ctx2, c.key(a, b), int64(x), int64(c.vocab), lower)
}

// wittenBell is (n(h, x) + t(h)·lower)/(n(h) + t(h)), or lower for a
// context never seen.
func wittenBell(grams map[int64]int, ctx map[int64]context, h, x, vocab int64, lower float64) float64 {
	s := ctx[h]
	if s.n == 0 {
		return lower
	}
	return (float64(grams[h*vocab+x]) + float64(s.types)*lower) / float64(s.n+s.types)
}
