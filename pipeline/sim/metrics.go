package sim

import (
	"math"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// Makespan returns the time from the first start to the last end of a
// timeline's events (0 for an empty timeline).
func Makespan(tl *Timeline) float64 {
	if len(tl.Events) == 0 {
		return 0
	}
	first, last := math.Inf(1), math.Inf(-1)
	for i := range tl.Events {
		e := &tl.Events[i]
		first, last = min(first, e.Start), max(last, e.End)
	}
	return last - first
}

// rankCompute returns the positions in tl.Events of each rank's compute
// events, in the order they ran: four bytes an event, where copies of the
// events would take their whole size.
func rankCompute(tl *Timeline) [][]int32 {
	out := make([][]int32, tl.Table.Ranks())
	counts := make([]int, len(out))
	total := 0
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Action.Kind.IsCompute() && e.Rank >= 0 && e.Rank < len(out) {
			counts[e.Rank]++
			total++
		}
	}
	buf := make([]int32, total)
	for r := range out {
		out[r], buf = buf[:0:counts[r]], buf[counts[r]:]
	}
	for i := range tl.Events {
		e := &tl.Events[i]
		if e.Action.Kind.IsCompute() && e.Rank >= 0 && e.Rank < len(out) {
			out[e.Rank] = append(out[e.Rank], int32(i))
		}
	}
	return out
}

// BubbleRatio returns the Zero Bubble paper's bubble rate (arXiv
// 2401.10241, §3): the idle share of the longest per-rank span, where a
// rank's span runs from its first compute start to its last compute end.
// With B the busy time of rank r and L the longest span over R ranks that
// compute, it is 1 - ΣB / (R·L); for uniform stages, every rank being busy
// m(T_F + T_B + T_W), this is the paper's (L - m(T_F + T_B + T_W)) / L.
func BubbleRatio(tl *Timeline) float64 {
	var busy, longest float64
	ranks := 0
	for _, evs := range rankCompute(tl) {
		if len(evs) == 0 {
			continue
		}
		ranks++
		first, last := math.Inf(1), math.Inf(-1)
		for _, i := range evs {
			e := &tl.Events[i]
			busy += e.End - e.Start
			first, last = min(first, e.Start), max(last, e.End)
		}
		longest = max(longest, last-first)
	}
	if ranks == 0 || longest == 0 {
		return 0
	}
	return 1 - busy/(float64(ranks)*longest)
}

// RankSpans returns each rank's span, from its first compute start to its
// last compute end (0 for a rank that computes nothing): the time a rank
// is taken by one iteration when iterations overlap, as under the Zero
// Bubble runtime's optimizer post-validation
// (cost.GPUModel.PostValidatedIteration), and the span BubbleRatio
// divides by.
func RankSpans(tl *Timeline) []float64 {
	evs := rankCompute(tl)
	out := make([]float64, len(evs))
	for r, idx := range evs {
		if len(idx) == 0 {
			continue
		}
		first, last := math.Inf(1), math.Inf(-1)
		for _, i := range idx {
			e := &tl.Events[i]
			first, last = min(first, e.Start), max(last, e.End)
		}
		out[r] = last - first
	}
	return out
}

// RankStat is what one rank did in a timeline.
type RankStat struct {
	Rank int
	// Busy is the time the rank computed; Idle the rest of the makespan.
	Busy, Idle float64
	// CommWait is the part of Idle the rank spent waiting for a transfer:
	// before each compute action, the time after both its previous action
	// and the producer of a remote input had finished and before that
	// input arrived.
	CommWait float64
	// PeakActivations is the most microbatch activations the rank held at
	// once: a forward's output from its end until the end of the backward
	// that frees it (the W when the backward is split), one per stage.
	PeakActivations int
	// PeakMemoryBytes is, under a cost.Memory, the static bytes of the
	// rank's stages plus the most activation bytes it held at once (see
	// PeakMemory: between a split backward's I and W a microbatch still
	// counts in PeakActivations but holds only M_W bytes).
	PeakMemoryBytes float64
}

// RankStats returns each rank's statistics; with a nil mem the memory
// bytes are zero.
func RankStats(tl *Timeline, mem cost.Memory) []RankStat {
	span := Makespan(tl)
	byRank := rankCompute(tl)
	waits := commWait(tl, byRank)
	peaks := peakActivations(tl, byRank)
	var bytes []float64
	if mem != nil {
		bytes = peakMemory(tl, byRank, mem)
	}
	stats := make([]RankStat, tl.Table.Ranks())
	for r, evs := range byRank {
		st := RankStat{Rank: r, CommWait: waits[r], PeakActivations: peaks[r]}
		for _, i := range evs {
			st.Busy += tl.Events[i].End - tl.Events[i].Start
		}
		st.Idle = span - st.Busy
		if bytes != nil {
			st.PeakMemoryBytes = bytes[r]
		}
		stats[r] = st
	}
	return stats
}

// PeakActivations returns, per rank, the most activations held at once
// (see RankStat.PeakActivations).
func PeakActivations(tl *Timeline) []int {
	return peakActivations(tl, rankCompute(tl))
}

// peakActivations is PeakActivations on the compute events split by rank.
func peakActivations(tl *Timeline, byRank [][]int32) []int {
	rule := newActivationRule(tl.Table)
	peaks := make([]int, tl.Table.Ranks())
	for r, evs := range byRank {
		held := 0
		for _, i := range evs {
			held += rule.delta(tl.Events[i].Action)
			peaks[r] = max(peaks[r], held)
		}
	}
	return peaks
}

// PeakMemory returns, per rank, the static bytes of its stages plus the
// most activation bytes it held at once, as mem prices them, read after
// each compute event. A forward of stage s adds ActivationBytes(s) (M_B);
// a full backward B frees it. When the table splits that backward, its
// input-gradient part I frees M_B − M_W and its W frees the M_W left,
// where M_W is cost.WeightGradBytes(mem, s): the model's M_W for a
// cost.WeightGradMemory, M_B otherwise (I then frees nothing and W frees
// all). An OVERLAP_F_B adds
// its forward's bytes and frees its backward's.
func PeakMemory(tl *Timeline, mem cost.Memory) []float64 {
	return peakMemory(tl, rankCompute(tl), mem)
}

// peakMemory is PeakMemory on the compute events split by rank.
func peakMemory(tl *Timeline, byRank [][]int32, mem cost.Memory) []float64 {
	t := tl.Table
	rule := newActivationRule(t)
	out := staticBytes(t, mem)
	for r, evs := range byRank {
		var h heldBytes
		for _, i := range evs {
			h.after(rule, tl.Events[i].Action, mem)
		}
		out[r] += h.peak
	}
	return out
}

// FixedPeakMemory returns, per rank, what PeakMemory reports when the rank
// runs its row in order: the static bytes of its stages plus the most
// activation bytes it holds at once. Like FixedPeakActivations it depends
// on the order alone, so it is what PeakMemory measures under the Fixed
// policy, whatever the costs and variability, computed without simulating
// (the same sums in the same order, so the same float64).
func FixedPeakMemory(t *pipeline.Table, mem cost.Memory) []float64 {
	rule := newActivationRule(t)
	out := staticBytes(t, mem)
	for r, row := range t.Rows {
		var h heldBytes
		for _, a := range row {
			if a.Kind.IsCompute() {
				h.after(rule, a, mem)
			}
		}
		out[r] += h.peak
	}
	return out
}

// staticBytes returns, per rank, the static bytes of the stages it holds.
func staticBytes(t *pipeline.Table, mem cost.Memory) []float64 {
	out := make([]float64, t.Ranks())
	for s, r := range t.Placement {
		out[r] += mem.StaticBytes(s)
	}
	return out
}

// heldBytes follows the activation bytes one rank holds, action by action.
type heldBytes struct{ held, peak float64 }

// after updates h for the end of compute action a.
func (h *heldBytes) after(rule activationRule, a pipeline.Action, mem cost.Memory) {
	for _, sub := range singleActions(a) {
		h.held += activationBytesDelta(rule, sub, mem)
	}
	h.peak = max(h.peak, h.held)
}

// activationBytesDelta is the change in activation bytes a rank holds
// when the single action a ends, under rule (which says whether a's
// backward is split) and mem. It follows rule.delta, so a microbatch is
// counted in PeakActivations exactly while it is counted here, with M_W
// bytes between a split backward's I and its W and M_B before.
func activationBytesDelta(rule activationRule, a pipeline.Action, mem cost.Memory) float64 {
	d := rule.delta(a)
	switch {
	case a.Kind == pipeline.BackwardInput && d == 0:
		// The I of a split backward: M_W stays until the W.
		return cost.WeightGradBytes(mem, a.Stage) - mem.ActivationBytes(a.Stage)
	case a.Kind == pipeline.BackwardWeight:
		return float64(d) * cost.WeightGradBytes(mem, a.Stage)
	case d == 0:
		return 0
	}
	return float64(d) * mem.ActivationBytes(a.Stage)
}
