package charlm

import (
	"slices"
	"testing"
)

// TestBlocksPerStageRegroupsTheSameNetwork: S = 3 stages with K = 2 blocks
// on the middle stage and S = 4 stages with one block each are the same
// network (embedding, two GPT blocks, head) with the same parameter order
// and the same Init (GPT-2's residual scaling uses L = K·(S-2) = 2 in
// both), cut into different stage blocks. Their losses and gradients must
// agree bit for bit, and the stage offsets must follow the cut.
func TestBlocksPerStageRegroupsTheSameNetwork(t *testing.T) {
	text, _ := MarkovCorpus(6, 600)
	four := tinyConfig()
	three := four
	three.Stages, three.BlocksPerStage = 3, 2
	a, err := New(four, text)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(three, text)
	if err != nil {
		t.Fatal(err)
	}
	ab, bb := a.Blocks(), b.Blocks()
	if want := []int{ab[0], ab[1], ab[3], ab[4]}; !slices.Equal(bb, want) {
		t.Fatalf("K = 2 offsets %v, want the S = 4 offsets %v without the cut between the blocks", bb, want)
	}
	if !slices.Equal(a.Init(), b.Init()) {
		t.Fatal("Init differs")
	}
	x := perturbedPoint(a, 9)
	ga, gb := make([]float64, a.Dim()), make([]float64, b.Dim())
	a.Gradient(ga, x, 3, nil)
	b.Gradient(gb, x, 3, nil)
	if !slices.Equal(ga, gb) {
		t.Error("gradients differ")
	}
	if a.Loss(x) != b.Loss(x) || a.ValidationLoss(x) != b.ValidationLoss(x) {
		t.Error("losses differ")
	}
}

// TestBlocksPerStageZeroIsOne: the zero value of BlocksPerStage is one
// block per middle stage, the layout before the field existed.
func TestBlocksPerStageZeroIsOne(t *testing.T) {
	text, _ := MarkovCorpus(6, 600)
	one := tinyConfig()
	one.BlocksPerStage = 1
	zero := tinyConfig()
	zero.BlocksPerStage = 0
	a, _ := New(one, text)
	b, err := New(zero, text)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Blocks(), b.Blocks()) || !slices.Equal(a.Init(), b.Init()) {
		t.Error("BlocksPerStage 0 and 1 give different models")
	}
}
