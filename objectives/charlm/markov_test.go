package charlm

import (
	"bytes"
	"math"
	"testing"
)

// binaryEntropy is -p·log p - (1-p)·log(1-p) in nats.
func binaryEntropy(p float64) float64 {
	return -p*math.Log(p) - (1-p)*math.Log(1-p)
}

// TestEntropyRateClosedForm checks entropyRate on chains built by hand.
func TestEntropyRateClosedForm(t *testing.T) {
	const a, b = 0.3, 0.1
	tests := []struct {
		name  string
		chain markovChain
		want  float64
	}{
		{
			// Two states flipping with probabilities a and b: the
			// stationary distribution is (b, a)/(a+b), so
			// H = (b·h(a) + a·h(b))/(a+b) with h the binary entropy.
			name: "two-state",
			chain: markovChain{alphabet: "xy", next: [][]int{{0, 1}, {0, 1}},
				prob: [][]float64{{1 - a, a}, {b, 1 - b}}},
			want: (b*binaryEntropy(a) + a*binaryEntropy(b)) / (a + b),
		},
		{
			// Every state has 3 equally likely successors: H = log 3
			// whatever the stationary distribution.
			name: "uniform successors",
			chain: markovChain{alphabet: "wxyz",
				next: [][]int{{0, 1, 2}, {2, 3, 0}, {3, 0, 1}, {0, 1, 2}},
				prob: [][]float64{{1. / 3, 1. / 3, 1. / 3}, {1. / 3, 1. / 3, 1. / 3}, {1. / 3, 1. / 3, 1. / 3}, {1. / 3, 1. / 3, 1. / 3}}},
			want: math.Log(3),
		},
		{
			// Transitions with probability 1 carry no information.
			name:  "deterministic transitions",
			chain: markovChain{alphabet: "pq", next: [][]int{{0}, {0}}, prob: [][]float64{{1}, {1}}},
			want:  0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.chain.entropyRate(); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("entropyRate = %.15f, want %.15f", got, tt.want)
			}
		})
	}
}

// TestMarkovCorpusFloorMatchesSample estimates the conditional entropy
// H(X_t | X_{t-1}) of a long Markov corpus from its own bigram counts,
// with no access to the chain: Σ_ab (c_ab/N)·log(c_a/c_ab). By the
// ergodic theorem this converges to the entropy rate; the standard error
// at N = 10⁶ is about 1e-3 (per-character log-loss sd ≲ 1) and the
// plug-in bias about (bigrams - characters)/2N ≈ 2e-5, so a tolerance of
// 5e-3 is several standard errors.
func TestMarkovCorpusFloorMatchesSample(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		text, floor := MarkovCorpus(seed, 1_000_000)
		var pair [256][256]float64
		var single [256]float64
		for i := 1; i < len(text); i++ {
			pair[text[i-1]][text[i]]++
			single[text[i-1]]++
		}
		n := float64(len(text) - 1)
		var h float64
		for a := range pair {
			for b := range pair[a] {
				if c := pair[a][b]; c > 0 {
					h += c / n * math.Log(single[a]/c)
				}
			}
		}
		t.Logf("seed %d: floor %.5f nats, sample estimate %.5f", seed, floor, h)
		if math.Abs(h-floor) > 5e-3 {
			t.Errorf("seed %d: floor %.5f, sample conditional entropy %.5f", seed, floor, h)
		}
	}
}

func TestMarkovCorpusText(t *testing.T) {
	a, floorA := MarkovCorpus(5, 1000)
	b, floorB := MarkovCorpus(5, 1000)
	c, _ := MarkovCorpus(6, 1000)
	if !bytes.Equal(a, b) || floorA != floorB {
		t.Error("same seed gave different corpora")
	}
	if bytes.Equal(a, c) {
		t.Error("seeds 5 and 6 gave the same corpus")
	}
	// ⌈10·1000/9⌉ = 1112 characters, of which ⌊9·1112/10⌋ = 1000 train.
	if len(a) != 1112 || TrainingCharacters(len(a)) != 1000 {
		t.Errorf("len = %d (%d training), want 1112 (1000 training)", len(a), TrainingCharacters(len(a)))
	}
	// The training characters are the chain's first 1000: a longer text
	// only appends held-out characters.
	if longer, _ := MarkovCorpus(5, 5000); !bytes.Equal(longer[:len(a)], a) {
		t.Error("the first 1112 characters depend on the text's length")
	}
	for i, ch := range a {
		if !bytes.ContainsRune([]byte(corpusAlphabet), rune(ch)) {
			t.Fatalf("byte %d = %q is not in the alphabet %q", i, ch, corpusAlphabet)
		}
	}
	// At most 3 successors per character: the floor is at most log 3.
	if floorA <= 0 || floorA > math.Log(corpusSuccessors) {
		t.Errorf("floor = %g, want in (0, log %d]", floorA, corpusSuccessors)
	}
	if empty, _ := MarkovCorpus(5, 0); len(empty) != 0 {
		t.Errorf("n = 0 gave %d bytes", len(empty))
	}
}
