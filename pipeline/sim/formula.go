package sim

import (
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// Estimate is the closed-form cost of one iteration of a schedule family
// with uniform stages and free communication: the "formula" level of the
// tabular-schedule paper's three-level comparison (arXiv 2605.24006).
type Estimate struct {
	// Makespan is the iteration time, Bubble the idle time of the busiest
	// rank within it (Makespan minus M(T_F + T_B + T_W)).
	Makespan, Bubble float64
	// PeakActivations is the most activations a rank holds, counted as
	// Simulate counts them: one per stage (chunk) and microbatch.
	PeakActivations float64
	// Source names where the formula comes from.
	Source string
}

// ClosedForm returns the closed-form estimate of a family for a shape
// (Ranks P, Microbatches M, Chunks V, 0 meaning the family's default) and
// the compute times of one rank's share of the model, as the papers state
// them (docs/reference.md §1–2): T_F forward, T_B input gradient, T_W weight
// gradient, a full backward costing T_B + T_W. A family with V chunks per
// rank spends T/V per chunk. ok is false for a family without a known
// closed form ("n/a"), and for ZB-V unless T_F = T_B = T_W, the only case
// its paper states.
func ClosedForm(family string, sh pipeline.Shape, c cost.Stage) (e Estimate, ok bool) {
	p, m := float64(sh.Ranks), float64(sh.Microbatches)
	work := c.TF + c.TB + c.TW // one microbatch on one rank's share
	busy := m * work
	chunks := func(def int) float64 {
		if sh.Chunks == 0 {
			return float64(def)
		}
		return float64(sh.Chunks)
	}
	withBubble := func(bubble, peak float64, source string) (Estimate, bool) {
		return Estimate{Makespan: busy + bubble, Bubble: bubble, PeakActivations: peak, Source: source}, true
	}
	switch family {
	case "gpipe":
		return withBubble((p-1)*work, m, "GPipe: (M + P - 1)(T_F + T_B + T_W), M activations (docs/reference.md §2)")
	case "1f1b":
		return withBubble((p-1)*work, min(p, m), "1F1B: (M + P - 1)(T_F + T_B + T_W), P - r activations on rank r (docs/reference.md §2)")
	case "pipedream":
		return withBubble((p-1)*work, min(p, m), "asynchronous PipeDream: 2N + 2S - 2 unit steps (docs/reference.md §1.2), NOAM = P in flight")
	case "interleaved-1f1b":
		v := chunks(2)
		return withBubble((p-1)*work/v, min(2*(p-1)+(v-1)*p+1, m*v),
			"interleaved 1F1B: bubble (P - 1)(T_F + T_B)/V, 2(P - 1) + (V - 1)P + 1 chunk activations on rank 0 (Megatron-LM, docs/reference.md §2)")
	case "looped-bfs":
		v := chunks(2)
		return withBubble((p-1)*work/v, m*v, "breadth-first: bubble (P - 1)(T_F + T_B)/V as interleaved, every chunk of every microbatch held (arXiv 2211.05953)")
	case "zb-h1":
		return withBubble(max(0, (p-1)*(c.TF+c.TB-c.TW)), min(p, m), "ZB-H1: bubble (P - 1)(T_F + T_B - T_W), peak P·M_B (arXiv 2401.10241)")
	case "zb-h2":
		return withBubble(max(0, (p-1)*(c.TF+c.TB-2*c.TW)), min(2*p-1, m), "ZB-H2: bubble (P - 1)(T_F + T_B - 2T_W), peak (2P - 1)·M_B (arXiv 2401.10241)")
	case "zb-v":
		if c.TF != c.TB || c.TB != c.TW {
			return Estimate{}, false
		}
		return withBubble(0, min(2*p, 2*m), "ZB-V: zero bubble at P·M_B (2P chunk activations) when T_F = T_B = T_W (arXiv 2401.10241)")
	case "dualpipev":
		// DualPipe's README (deepseek-ai/DualPipe; arXiv 2412.19437 §3.2)
		// gives the bubble (PP/2 - 1)(F&B + B - 3W) for PP stages (even),
		// which DualPipeV runs on PP/2 ranks: PP = 2P. F, B (a full
		// backward), W and F&B (an overlapped pair) are times of one chunk,
		// half a rank share here; both halves of an F&B share one GPU, so
		// F&B = F + B. Per chunk, (P - 1)(F + 2B_I - W) with B_I the input
		// gradient. The simulation meets it exactly when T_F = T_B >= T_W
		// (dualpipev_test.go). Activations: PP + 1 of one stage each, 2P + 1
		// chunk activations, which the simulator's count reaches on the last
		// rank (it runs its first F and B apart, not overlapped).
		f, b, w := c.TF/2, c.TB/2, c.TW/2
		return withBubble(max(0, (p-1)*((f+b+w)+(b+w)-3*w)), 2*p+1,
			"DualPipeV: bubble (PP/2 - 1)(F&B + B - 3W) per chunk with PP = 2P stages, F&B = F + B, PP + 1 chunk activations (DualPipe README, arXiv 2412.19437)")
	case "dualpipe":
		// DualPipe's README gives the full DualPipe the same bubble as
		// DualPipeV, (PP/2 - 1)(F&B + B - 3W), on PP ranks of one stage of
		// each pipeline: here PP = P and F, B (full), W are times of a rank's
		// share, F&B = F + B. Activations: PP + 1 of one stage, P + 1 rank
		// shares, which the simulator's count reaches on the two middle
		// ranks (they run their first F and B apart).
		f, b, w := c.TF, c.TB+c.TW, c.TW
		return withBubble(max(0, (p/2-1)*((f+b)+b-3*w)), p+1,
			"DualPipe: bubble (PP/2 - 1)(F&B + B - 3W) with PP = P stages, F&B = F + B, PP + 1 activations (DualPipe README, arXiv 2412.19437)")
	case "v-min", "v-half":
		// The controllable-memory paper (Qi et al., arXiv 2405.15362)
		// tabulates, with T_F = T_B = T_W only, a bubble rate of about
		// 2P/3M (V-Min) and P/2M (V-Half) of the iteration, i.e. a bubble
		// of about 2P/3 and P/2 microbatches' work, and peak activations of
		// (P + 4) // 3 and (P + 2) // 2 rank shares, 2(P + 4)//3 and
		// 2(P + 2)//2 chunk activations.
		if c.TF != c.TB || c.TB != c.TW {
			return Estimate{}, false
		}
		if family == "v-min" {
			return withBubble(2*p/3*work, float64(2*((sh.Ranks+4)/3)),
				"V-Min: bubble rate ~2P/3M, (P + 4) // 3 activations of a rank share when T_F = T_B = T_W (arXiv 2405.15362)")
		}
		return withBubble(p/2*work, float64(2*((sh.Ranks+2)/2)),
			"V-Half: bubble rate ~P/2M, (P + 2) // 2 activations of a rank share when T_F = T_B = T_W (arXiv 2405.15362)")
	case "chimera":
		// Bubble ratio (D - 2)/(2N + D - 2) of the iteration (arXiv
		// 2107.06925, Table 1), i.e. (P - 2)/2 slots of one microbatch's work.
		return withBubble((p-2)*work/2, p, "Chimera: bubble ratio (P - 2)/(2M + P - 2), at most P activations (arXiv 2107.06925)")
	}
	return Estimate{}, false
}
