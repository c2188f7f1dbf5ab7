package sim

import (
	"math"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// syncedExplicit is cost.Explicit with a fixed all-reduce time.
type syncedExplicit struct {
	cost.Explicit
	allReduce float64
}

func (c syncedExplicit) AllReduce(int, []int) float64 { return c.allReduce }

// Chimera's replicas all-reduce each part's gradients once both replicas
// have computed their last backward of it. The expected events are read
// off the same table simulated without an all-reduce (which cannot move a
// compute): part p starts at the later of its two replicas' last B.
func TestGradientSyncChimera(t *testing.T) {
	for _, pm := range [][2]int{{2, 2}, {4, 4}, {4, 8}, {6, 12}} {
		tb := generate(t, "chimera", pipeline.Shape{Ranks: pm[0], Microbatches: pm[1]})
		plain := cost.Explicit{TF: 1, TB: 1, Comm: 0.25}
		bare := simulateOK(t, tb, plain, Options{})
		synced := simulateOK(t, tb, syncedExplicit{plain, 10}, Options{})
		if got, want := computeOnly(synced), computeOnly(bare); !slices.Equal(got, want) {
			t.Fatalf("P=%d M=%d: the all-reduce moved compute events", pm[0], pm[1])
		}
		lastB := map[int]float64{}
		for _, e := range bare.Events {
			if e.Action.Kind == pipeline.Backward {
				lastB[e.Action.Stage] = max(lastB[e.Action.Stage], e.End)
			}
		}
		p := pm[0]
		end := Makespan(bare)
		var got []Event
		for _, e := range synced.Events {
			if e.Action.Kind == pipeline.ReduceGrad {
				got = append(got, e)
			}
		}
		if len(got) != 2*p {
			t.Fatalf("P=%d M=%d: %d REDUCE_GRAD events, want one per stage, %d", p, pm[1], len(got), 2*p)
		}
		for _, e := range got {
			part := e.Action.Stage % p // stage P + i replicates part i
			start := max(lastB[part], lastB[p+part])
			if e.Start != start || e.End != start+10 || e.Rank != tb.Placement[e.Action.Stage] || e.Index != -1 {
				t.Errorf("P=%d M=%d: %+v, want rank %d from %v to %v", p, pm[1], e, tb.Placement[e.Action.Stage], start, start+10)
			}
			end = max(end, start+10)
		}
		if Makespan(synced) != end {
			t.Errorf("P=%d M=%d: makespan %v, want %v", p, pm[1], Makespan(synced), end)
		}
	}
}

func computeOnly(tl *Timeline) []Event {
	return slices.DeleteFunc(slices.Clone(tl.Events), func(e Event) bool { return !e.Action.Kind.IsCompute() })
}

// No replicas, no all-reduce; a table that writes its own REDUCE_GRAD keeps
// those and gets no implicit one.
func TestGradientSyncOnlyForReplicas(t *testing.T) {
	cost := syncedExplicit{cost.Explicit{TF: 1, TB: 2}, 10}
	for _, family := range []string{"1f1b", "zb-h1", "interleaved-1f1b"} {
		tl := simulateOK(t, generate(t, family, pipeline.Shape{Ranks: 4, Microbatches: 8}), cost, Options{})
		for _, e := range tl.Events {
			if e.Action.Kind == pipeline.ReduceGrad {
				t.Errorf("%s: unexpected %+v", family, e)
			}
		}
	}
	tb := generate(t, "chimera", pipeline.Shape{Ranks: 2, Microbatches: 2}).Clone()
	for r := range tb.Rows {
		for _, s := range []int{r, 3 - r} {
			tb.Rows[r] = append(tb.Rows[r], pipeline.Action{Kind: pipeline.ReduceGrad, Stage: s, Microbatch: pipeline.NoMicrobatch})
		}
	}
	tl := simulateOK(t, tb, cost, Options{})
	for _, e := range tl.Events {
		if e.Action.Kind == pipeline.ReduceGrad && e.Index < 0 {
			t.Errorf("an implicit all-reduce beside the table's own: %+v", e)
		}
	}
}

// A ring all-reduce of n ranks moves 2(n-1)/n of the bytes in 2(n-1)
// latency-bound steps (Patarasuk and Yuan 2009); two replicas of a stage of
// 4 layers of width h = 1024 hold 4·12h² = 50,331,648 parameters (QKV and
// output 4h², MLP 8h²; biases and norms are left out of decoderOnly's
// count — checked against Params below), bf16 gradients.
func TestGradientSyncRingTime(t *testing.T) {
	gpu, err := cost.LookupGPU("h100")
	if err != nil {
		t.Fatal(err)
	}
	link := cost.Link{Name: "test", Latency: 5e-6, Bandwidth: 25e9}
	g, err := cost.NewGPUModel(cost.GPUConfig{Network: decoderOnly(8, 1024, 16), GPU: gpu, Link: link, Microbatch: 1, Sequence: 1024}, 2)
	if err != nil {
		t.Fatal(err)
	}
	params := g.Params(0)
	if math.Abs(params-50331648)/50331648 > 0.001 {
		t.Fatalf("stage 0 holds %v parameters, want about 4·12h² = 50331648", params)
	}
	for _, n := range []int{1, 2, 4} {
		want := 0.0
		if n > 1 {
			k := float64(2 * (n - 1))
			want = k*5e-6 + k/float64(n)*params*2/25e9
		}
		if got := g.AllReduce(0, firstRanks(n)); !near(got, want) {
			t.Errorf("n = %d: %v s, want %v", n, got, want)
		}
	}
	// Two replicas of 100.7 MB over 25 GB/s: 4.03 ms plus 10 µs.
	if got := g.AllReduce(0, firstRanks(2)); math.Abs(got-(10e-6+params*2/25e9)) > 1e-12 {
		t.Errorf("two replicas: %v s", got)
	}
}

// firstRanks is the ranks 0, ..., n-1.
func firstRanks(n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = i
	}
	return r
}
