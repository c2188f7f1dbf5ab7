package cost

import (
	"math"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

// Under AsyncTensorAllReduce a full backward hides each transformer
// layer's two input-gradient all-reduces (2sbh bytes each, a ring over
// the 8 GPUs of NVLink 3: RingAllReduce) under its weight gradients, up to
// their time; the split input gradient I, the weight gradient W and the
// forward keep their times, and a stage without transformer layers hides
// nothing.
func TestAsyncTensorAllReduce(t *testing.T) {
	for _, recompute := range []Recompute{RecomputeNone, RecomputeSelective, RecomputeFull} {
		base := clusterConfig(t, Parallelism{Tensor: 8, Recompute: recompute})
		async := clusterConfig(t, Parallelism{Tensor: 8, Recompute: recompute, AsyncTensorAllReduce: true})
		partition := []int{1, 4, 1} // the embedding, the 4 layers, the head
		g0, err := NewGPUModelPartition(base, partition)
		if err != nil {
			t.Fatal(err)
		}
		g1, err := NewGPUModelPartition(async, partition)
		if err != nil {
			t.Fatal(err)
		}
		allReduce := RingAllReduce(2048*6144*BytesPerElement, 8, base.Link)
		for s := range partition {
			layers := 0.0
			if s == 1 {
				layers = 4
			}
			st := g0.Stage(s)
			want := math.Min(layers*2*allReduce, st.TW)
			if layers > 0 && want != layers*2*allReduce {
				t.Fatalf("stage %d: the weight gradients (%g s) take less than the all-reduces: a test of the bound, not of the hiding", s, st.TW)
			}
			full := pipeline.Action{Kind: pipeline.Backward, Stage: s}
			if got := g0.Compute(full) - g1.Compute(full); math.Abs(got-want) > 1e-12 {
				t.Errorf("%v, stage %d: the full backward saves %g s, want %g", recompute, s, got, want)
			}
			for _, k := range []pipeline.Kind{pipeline.Forward, pipeline.BackwardInput, pipeline.BackwardWeight} {
				a := pipeline.Action{Kind: k, Stage: s}
				if g0.Compute(a) != g1.Compute(a) {
					t.Errorf("%v, stage %d: %v changed from %g to %g s", recompute, s, k, g0.Compute(a), g1.Compute(a))
				}
			}
		}
	}
}

// With sequence parallelism a transformer layer's backward moves three
// all-reduces' worth (ar each, a ring all-reduce of the 2sbh-byte output
// over the 8 GPUs: RingAllReduce): the row-parallel outputs' gradients
// all-gathered, the column-parallel inputs all-gathered again and their
// gradients reduce-scattered, each pair half an all-reduce twice. The split
// input gradient I pays all three; under AsyncTensorAllReduce a full
// backward hides the reduce-scatters under the weight-gradient products
// and the inputs' all-gathers under the input-gradient products, ar each
// (both products outlast ar here), and waits for the gradients'
// all-gathers: B = I + W - 2ar.
func TestSequenceParallelBackward(t *testing.T) {
	plain := clusterConfig(t, Parallelism{Tensor: 8})
	sp := clusterConfig(t, Parallelism{Tensor: 8, SequenceParallel: true, AsyncTensorAllReduce: true})
	ar := RingAllReduce(2048*6144*BytesPerElement, 8, plain.Link)
	_, p0 := decoderOf(t, plain)
	_, p1 := decoderOf(t, sp)
	// Without sequence parallelism the input gradient pays two all-reduces;
	// with it, three, beside the same products and fewer element-wise bytes
	// (none here: no passes).
	if got, want := p1.backwardInput-p0.backwardInput, ar; math.Abs(got-want) > 1e-12 {
		t.Errorf("sequence parallelism adds %g s to I, want one all-reduce's %g", got, want)
	}
	l, _ := decoderOf(t, sp)
	if dgrad := l.BackwardInput / 8 / sp.Throughput(); p1.weight < ar || dgrad < ar {
		t.Fatalf("the weight (%g s) or input (%g s) gradients take less than an all-reduce: a test of the bound, not of the hiding", p1.weight, dgrad)
	}
	if got, want := p1.hidden, 2*ar; math.Abs(got-want) > 1e-12 {
		t.Errorf("a full backward hides %g s, want 2ar = %g", got, want)
	}
}
