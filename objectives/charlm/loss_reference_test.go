package charlm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// softmaxCrossEntropyBuiltinMax is softmaxCrossEntropy as it was before
// rowMax: the row's maximum taken with the builtin max. It is the
// reference of TestSoftmaxCrossEntropyMatchesBuiltinMax.
func softmaxCrossEntropyBuiltinMax(dlogits, logits []float64, targets []int32, n, vocab int) float64 {
	var total float64
	inv := 1 / float64(n)
	for i := 0; i < n; i++ {
		row := logits[i*vocab : i*vocab+vocab]
		maxLogit := math.Inf(-1)
		for _, v := range row {
			maxLogit = max(maxLogit, v)
		}
		var sum float64
		var shifted [64]float64
		for start := 0; start < vocab; start += len(shifted) {
			part := row[start:min(start+len(shifted), vocab)]
			e := shifted[:len(part)]
			for j, v := range part {
				e[j] = v - maxLogit
			}
			expInto(e, e)
			for _, v := range e {
				sum += v
			}
		}
		logSum := maxLogit + math.Log(sum)
		target := int(targets[i])
		total += logSum - row[target]
		if dlogits == nil {
			continue
		}
		d := dlogits[i*vocab : i*vocab+vocab]
		for j, v := range row {
			d[j] = v - logSum
		}
		expInto(d, d)
		for j := range d {
			d[j] *= inv
		}
		d[target] -= inv
	}
	return total * inv
}

// TestSoftmaxCrossEntropyMatchesBuiltinMax checks the loss and every
// logit gradient against the builtin max's version bit for bit, at the
// remedies shape (64 rows of 65) and on rows whose largest value is a
// zero of either sign or both, where max(-0, +0) = +0 decides the
// shift; and that a NaN logit makes the loss and its row's gradient NaN
// in both.
func TestSoftmaxCrossEntropyMatchesBuiltinMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 25))
	n, vocab := 64, 65
	logits := randomVector(rng, n*vocab, 2)
	targets := make([]int32, n)
	for i := range targets {
		targets[i] = int32(rng.IntN(vocab))
	}
	neg := math.Copysign(0, -1)
	// Row 0: the largest value -0 then +0; row 1: +0 then -0; row 2:
	// only -0; row 3: every value -0 (log of 65 exact exponentials).
	for j := range vocab {
		for r := range 3 {
			logits[r*vocab+j] = -1 - math.Abs(logits[r*vocab+j])
		}
		logits[3*vocab+j] = neg
	}
	logits[0*vocab+3], logits[0*vocab+40] = neg, 0
	logits[1*vocab+5], logits[1*vocab+6] = 0, neg
	logits[2*vocab+7] = neg
	got, want := make([]float64, n*vocab), make([]float64, n*vocab)
	gotLoss := softmaxCrossEntropy(got, logits, targets, n, vocab)
	wantLoss := softmaxCrossEntropyBuiltinMax(want, logits, targets, n, vocab)
	sameBits(t, "softmaxCrossEntropy loss", [3]int{n, vocab, 0}, []float64{gotLoss}, []float64{wantLoss})
	sameBits(t, "softmaxCrossEntropy dlogits", [3]int{n, vocab, 0}, got, want)
	if r := rowMax(logits[:vocab]); r != 0 || math.Signbit(r) {
		t.Fatalf("rowMax of a row with -0 and +0 = %v (sign bit %v), want +0", r, math.Signbit(r))
	}

	logits[5*vocab+9] = math.NaN()
	gotLoss = softmaxCrossEntropy(got, logits, targets, n, vocab)
	wantLoss = softmaxCrossEntropyBuiltinMax(want, logits, targets, n, vocab)
	if !math.IsNaN(gotLoss) || !math.IsNaN(wantLoss) {
		t.Fatalf("loss with a NaN logit = %v, the builtin max's %v, want NaN for both", gotLoss, wantLoss)
	}
	for j := range vocab {
		if g, w := got[5*vocab+j], want[5*vocab+j]; !math.IsNaN(g) || !math.IsNaN(w) {
			t.Fatalf("dlogits[5,%d] with a NaN logit = %v, the builtin max's %v, want NaN for both", j, g, w)
		}
	}
}
