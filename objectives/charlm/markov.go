package charlm

import (
	"math"
	"math/rand/v2"
	"slices"
)

// The Markov corpus is text from a stationary first-order Markov chain,
// so the best achievable cross-entropy (the chain's entropy rate) is known
// exactly.
const (
	// corpusAlphabet holds the chain's 24 printable characters.
	corpusAlphabet = "abcdefghijklmnopqrstuvw "
	// corpusSuccessors is how many characters may follow each character.
	corpusSuccessors = 3
	// corpusStream is the PCG stream of MarkovCorpus ("corpus" in ASCII).
	corpusStream = 0x636f72707573
)

// markovChain is a first-order Markov chain over an alphabet with sparse
// transitions: state i moves to next[i][j] with probability prob[i][j].
type markovChain struct {
	alphabet string
	next     [][]int
	prob     [][]float64
}

// randomSparseChain draws a chain in which each of the n states has k
// distinct successors: always its cyclic successor i+1 mod n (which makes
// the chain irreducible), and k-1 more drawn uniformly; state 0 always has
// itself among its successors (a self-loop makes the chain aperiodic).
// Transition probabilities are Dirichlet(1, …, 1), i.e. normalised
// exponential draws.
func randomSparseChain(rng *rand.Rand, alphabet string, k int) markovChain {
	n := len(alphabet)
	c := markovChain{alphabet: alphabet, next: make([][]int, n), prob: make([][]float64, n)}
	for i := range n {
		succ := []int{(i + 1) % n}
		if i == 0 {
			succ = append(succ, 0)
		}
		for len(succ) < k {
			j := rng.IntN(n)
			if !slices.Contains(succ, j) {
				succ = append(succ, j)
			}
		}
		w := make([]float64, k)
		var sum float64
		for j := range w {
			w[j] = rng.ExpFloat64()
			sum += w[j]
		}
		for j := range w {
			w[j] /= sum
		}
		c.next[i], c.prob[i] = succ, w
	}
	return c
}

// stationary returns the chain's stationary distribution π = πP by power
// iteration from the uniform distribution, stopping when an iteration
// moves π by less than 1e-15 in L1 norm (or after 1e6 iterations). The
// chain must be irreducible and aperiodic for this to converge.
func (c markovChain) stationary() []float64 {
	n := len(c.next)
	pi := make([]float64, n)
	nextPi := make([]float64, n)
	for i := range pi {
		pi[i] = 1 / float64(n)
	}
	for range 1_000_000 {
		clear(nextPi)
		for i, succ := range c.next {
			for j, s := range succ {
				nextPi[s] += pi[i] * c.prob[i][j]
			}
		}
		var moved float64
		for i := range pi {
			moved += math.Abs(nextPi[i] - pi[i])
		}
		pi, nextPi = nextPi, pi
		if moved < 1e-15 {
			break
		}
	}
	return pi
}

// entropyRate returns H = Σ_i π_i·H(P_i) in nats: the entropy of the next
// character given the current one, averaged over the stationary
// distribution. No predictor of a stationary sample can have a lower
// expected cross-entropy per character.
func (c markovChain) entropyRate() float64 {
	pi := c.stationary()
	var h float64
	for i, p := range c.prob {
		var hi float64
		for _, q := range p {
			if q > 0 {
				hi -= q * math.Log(q)
			}
		}
		h += float64(pi[i] * hi)
	}
	return h
}

// sample returns n characters of the chain, the first drawn from the
// stationary distribution so that the whole text is stationary.
func (c markovChain) sample(rng *rand.Rand, n int) []byte {
	text := make([]byte, max(n, 0))
	if n <= 0 {
		return text
	}
	state := draw(rng, c.stationary(), nil)
	for i := range text {
		text[i] = c.alphabet[state]
		state = draw(rng, c.prob[state], c.next[state])
	}
	return text
}

// draw picks index j with probability p[j] (returning next[j] if next is
// not nil).
func draw(rng *rand.Rand, p []float64, next []int) int {
	u := rng.Float64()
	j := len(p) - 1
	for i, q := range p {
		if u < q {
			j = i
			break
		}
		u -= q
	}
	if next != nil {
		return next[j]
	}
	return j
}

// MarkovCorpus returns the text of a first-order Markov chain over 24
// printable characters (a–w and space) in which each character has 3
// possible successors, and the chain's entropy rate in nats per
// character: the cross-entropy of a perfect next-character predictor, the
// floor that Loss and ValidationLoss can approach but (up to the sampling
// noise of a finite text) not beat. The text holds CorpusCharacters(n)
// characters (bytes; none if n ≤ 0): the first n, the ones New trains on,
// then the held-out ones, which continue the same chain. The chain and
// the text are drawn from rand.NewPCG(seed, corpusStream), so the first n
// characters do not depend on how many follow them.
func MarkovCorpus(seed uint64, n int) (text []byte, floor float64) {
	rng := rand.New(rand.NewPCG(seed, corpusStream))
	chain := randomSparseChain(rng, corpusAlphabet, corpusSuccessors)
	return chain.sample(rng, CorpusCharacters(max(n, 0))), chain.entropyRate()
}
