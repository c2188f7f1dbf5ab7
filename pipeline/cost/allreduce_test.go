package cost

import (
	"math"
	"testing"
)

// A LocalSGD averaging all-reduces every stage's bf16 weights over the R
// replicas at once, so it lasts the slowest stage's ring all-reduce,
// written out here from its closed form (Patarasuk and Yuan, JPDC 2009):
// max_s [2(R-1)/R · 2P_s/BW + 2(R-1)·α]. One replica has nothing to
// average.
func TestAveragingTime(t *testing.T) {
	net, err := LookupNetwork("gpt-1.3b")
	if err != nil {
		t.Fatal(err)
	}
	gpu, err := LookupGPU("a100")
	if err != nil {
		t.Fatal(err)
	}
	link, err := LookupLink("nvlink")
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGPUModel(GPUConfig{Network: net, GPU: gpu, Link: link, Microbatch: 1, Sequence: 2048}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.AveragingTime(1); got != 0 {
		t.Errorf("one replica: %g s, want 0", got)
	}
	for _, r := range []float64{2, 4, 8} {
		var want float64
		for s := range 4 {
			want = max(want, 2*(r-1)/r*2*g.Params(s)/link.Bandwidth+2*(r-1)*link.Latency)
		}
		if got := g.AveragingTime(int(r)); !near(got, want) || want <= 0 {
			t.Errorf("R = %g: %g s, want %g", r, got, want)
		}
	}
}

// TestRingAllReduceCollectiveBandwidth checks that a ring all-reduce runs
// at the link's collective bandwidth when it has one, 2(n-1)/n·S/BW +
// 2(n-1)α, and at its bandwidth otherwise; and nvlink3's figure.
func TestRingAllReduceCollectiveBandwidth(t *testing.T) {
	const bytes, n = 1e9, 8
	l := Link{Latency: 3e-6, Bandwidth: 300e9}
	if got, want := RingAllReduce(bytes, n, l), 2*7.0/8*bytes/300e9+14*3e-6; math.Abs(got-want) > 1e-15 {
		t.Errorf("without a collective bandwidth: %g s, want %g", got, want)
	}
	l.CollectiveBandwidth = 230e9
	if got, want := RingAllReduce(bytes, n, l), 2*7.0/8*bytes/230e9+14*3e-6; math.Abs(got-want) > 1e-15 {
		t.Errorf("at 230 GB/s: %g s, want %g", got, want)
	}
	if got, want := RingAllGather(bytes, n, l), 7.0/8*bytes/230e9+7*3e-6; math.Abs(got-want) > 1e-15 {
		t.Errorf("all-gather at 230 GB/s: %g s, want %g", got, want)
	}
	nv, err := LookupLink("nvlink3")
	if err != nil {
		t.Fatal(err)
	}
	if nv.CollectiveBandwidth != 230e9 {
		t.Errorf("nvlink3's collective bandwidth %g, want nccl-tests' 230 GB/s", nv.CollectiveBandwidth)
	}
}
