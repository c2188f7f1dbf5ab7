package sim

import (
	"math"
	"slices"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// 1F1B idles (P - 1)/(M + P - 1) of its iteration (docs/reference.md §2), the
// Zero Bubble paper's rate with every rank busy M(T_F + T_B); every rank's
// busy and idle time add up to the makespan.
func TestMetricsBubbleRatio1F1B(t *testing.T) {
	for _, pm := range [][2]int{{2, 4}, {4, 8}, {8, 32}} {
		p, m := pm[0], pm[1]
		tl := simulateOK(t, generate(t, "1f1b", pipeline.Shape{Ranks: p, Microbatches: m}), cost.Explicit{TF: 1, TB: 2}, Options{})
		want := float64(p-1) / float64(m+p-1)
		// 1 - busy/span is one rounding away from the exact ratio.
		if got := BubbleRatio(tl); math.Abs(got-want) > 1e-15 {
			t.Errorf("P=%d M=%d: bubble ratio %v, want (P-1)/(M+P-1) = %v", p, m, got, want)
		}
		for _, st := range RankStats(tl, nil) {
			if st.Busy != float64(m)*3 || st.Busy+st.Idle != Makespan(tl) {
				t.Errorf("P=%d M=%d rank %d: busy %v idle %v, want busy %v adding up to %v", p, m, st.Rank, st.Busy, st.Idle, m*3, Makespan(tl))
			}
		}
	}
}

// GPipe with one microbatch: every hop is waited for in full. Rank r > 0
// waits c for its forward input, rank r < P - 1 waits c for its gradient,
// so the end ranks wait c and the middle ones 2c.
func TestMetricsCommWait(t *testing.T) {
	const c = 0.5
	tl := simulateOK(t, generate(t, "gpipe", pipeline.Shape{Ranks: 4, Microbatches: 1}), cost.Explicit{TF: 1, TB: 1, Comm: c}, Options{})
	if got, want := CommWait(tl), []float64{c, 2 * c, 2 * c, c}; !slices.Equal(got, want) {
		t.Errorf("comm wait %v, want %v", got, want)
	}
	if got := CommWait(FromGrid(tl.Table)); !slices.Equal(got, []float64{0, 0, 0, 0}) {
		t.Errorf("a grid timeline has no transfers, but comm wait is %v", got)
	}
}

// stageMemory is a test memory model: stage s holds 100(s + 1) bytes of
// weights and each activation 10 bytes; every message is 3 bytes.
type stageMemory struct{}

func (stageMemory) ActivationBytes(int) float64          { return 10 }
func (stageMemory) StaticBytes(s int) float64            { return 100 * float64(s+1) }
func (stageMemory) MessageBytes(pipeline.Action) float64 { return 3 }

// 1F1B rank r holds P - r activations at its peak; its memory is its
// stage's weights plus that many activations. It sends 2(P - 1)M messages.
func TestMetricsMemoryAndVolume(t *testing.T) {
	const p, m, c = 4, 8, 0.25
	tl := simulateOK(t, generate(t, "1f1b", pipeline.Shape{Ranks: p, Microbatches: m}), cost.Explicit{TF: 1, TB: 2, Comm: c}, Options{})
	for r, got := range PeakMemory(tl, stageMemory{}) {
		if want := 100*float64(r+1) + 10*float64(p-r); got != want {
			t.Errorf("rank %d: peak memory %v, want %v", r, got, want)
		}
	}
	stats := RankStats(tl, stageMemory{})
	if stats[0].PeakMemoryBytes != 100+10*p || stats[0].PeakActivations != p {
		t.Errorf("rank 0 stats %+v", stats[0])
	}
	v := Communication(tl, stageMemory{})
	msgs := 2 * (p - 1) * m
	if v.Messages != msgs || v.LinkTime != float64(msgs)*c || v.Bytes != float64(3*msgs) {
		t.Errorf("volume %+v, want %d messages, %v link time, %d bytes", v, msgs, float64(msgs)*c, 3*msgs)
	}
}

// Split backwards hold their activation until W: a ZB-H1 rank holds up to
// P (docs/reference.md §2), where 1F1B's rank r holds P - r.
func TestMetricsActivationsHeldUntilW(t *testing.T) {
	tl := simulateOK(t, generate(t, "zb-h1", pipeline.Shape{Ranks: 4, Microbatches: 8}), cost.Unit{}, Options{})
	if got := PeakActivations(tl); !slices.Equal(got, []int{4, 4, 4, 4}) {
		t.Errorf("zb-h1 peaks %v, want P on every rank", got)
	}
	if got, want := PeakActivations(tl), FixedPeakActivations(tl.Table); !slices.Equal(got, want) {
		t.Errorf("simulated peaks %v, fixed-order peaks %v", got, want)
	}
}

func TestMetricsEmpty(t *testing.T) {
	tl := &Timeline{Table: &pipeline.Table{Rows: make([][]pipeline.Action, 2), Placement: []int{0, 1}}}
	if Makespan(tl) != 0 || BubbleRatio(tl) != 0 {
		t.Errorf("empty timeline: makespan %v, bubble %v", Makespan(tl), BubbleRatio(tl))
	}
}

// 1F1B on P ranks with F = B = 1 and free transfers: rank r's first
// forward starts at r and its last backward ends at 2(M + P − 1) − r, so
// its span is 2(M + P − 1) − 2r (P = 2, M = 3: 8 and 6).
func TestRankSpans1F1B(t *testing.T) {
	for _, pm := range [][2]int{{2, 3}, {4, 8}} {
		p, m := pm[0], pm[1]
		tl := simulateOK(t, generate(t, "1f1b", pipeline.Shape{Ranks: p, Microbatches: m}), cost.Explicit{TF: 1, TB: 1}, Options{})
		spans := RankSpans(tl)
		for r, got := range spans {
			if want := float64(2*(m+p-1) - 2*r); math.Abs(got-want) > 1e-12 {
				t.Errorf("P %d, M %d, rank %d: span %g, want %g", p, m, r, got, want)
			}
		}
		if len(spans) != p {
			t.Errorf("P %d: %d spans", p, len(spans))
		}
	}
}
