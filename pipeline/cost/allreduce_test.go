package cost

import "testing"

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
