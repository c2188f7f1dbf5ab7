package charlm

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestValidationLossReadsTheLastTenth builds a corpus of ten copies of one
// text T, so that the held-out tenth is T itself and held-out window j
// holds the same characters as training batch j (both start at j·B·T of
// a copy of T). ValidationLoss over every window must then equal the
// mean of BatchLoss over those batches, an independent path to the same
// numbers.
func TestValidationLossReadsTheLastTenth(t *testing.T) {
	copyT := "to be, or not to be, that is the question: whether 'tis nobler in the mind"
	cfg := Config{Stages: 3, Embed: 8, Heads: 2, SeqLen: 5, Batch: 2, ValidationBatches: 1000, Seed: 3}
	m, err := New(cfg, []byte(strings.Repeat(copyT, 10)))
	if err != nil {
		t.Fatal(err)
	}
	train, held := m.Characters()
	if held != len(copyT) || train != 9*len(copyT) {
		t.Fatalf("Characters = %d, %d, want %d, %d", train, held, 9*len(copyT), len(copyT))
	}
	// (75 - 1) / (2·5) = 7 windows, all of them evaluated.
	windows := m.ValidationBatches()
	if !slices.Equal(windows, []int{0, 1, 2, 3, 4, 5, 6}) {
		t.Fatalf("ValidationBatches = %v, want 0..6", windows)
	}
	x := perturbedPoint(m, 5)
	var want float64
	for _, j := range windows {
		want += m.BatchLoss(x, j)
	}
	want /= float64(len(windows))
	if got := m.ValidationLoss(x); math.Abs(got-want) > 1e-12 {
		t.Errorf("ValidationLoss = %.15f, want the mean of training batches 0..6 = %.15f", got, want)
	}
}

// TestHeldOutTextIsNeverTrainedOn reverses the held-out text (which keeps
// the vocabulary) and checks that no training
// batch's gradient and no training loss moves, while the validation loss
// does.
func TestHeldOutTextIsNeverTrainedOn(t *testing.T) {
	base, _ := MarkovCorpus(4, 900)
	changed := slices.Clone(base)
	slices.Reverse(changed[TrainingCharacters(len(base)):])
	a, err := New(tinyConfig(), base)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(tinyConfig(), changed)
	if err != nil {
		t.Fatal(err)
	}
	x := perturbedPoint(a, 2)
	ga, gb := make([]float64, a.Dim()), make([]float64, b.Dim())
	for k := range a.Batches() {
		a.Gradient(ga, x, k, nil)
		b.Gradient(gb, x, k, nil)
		if !slices.Equal(ga, gb) {
			t.Fatalf("batch %d: the gradient depends on held-out text", k)
		}
	}
	if a.Loss(x) != b.Loss(x) {
		t.Error("Loss depends on held-out text")
	}
	if a.ValidationLoss(x) == b.ValidationLoss(x) {
		t.Error("ValidationLoss did not change with the held-out text")
	}
}

func TestValidationLossDoesNotAllocate(t *testing.T) {
	text, _ := MarkovCorpus(2, 400)
	m, err := New(tinyConfig(), text)
	if err != nil {
		t.Fatal(err)
	}
	x := m.Init()
	if n := testing.AllocsPerRun(10, func() { m.ValidationLoss(x) }); n != 0 {
		t.Errorf("ValidationLoss allocates %v times per call", n)
	}
}
