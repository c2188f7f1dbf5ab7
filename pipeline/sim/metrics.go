package sim

import (
	"math"

	"pipelab/pipeline"
)

// Makespan returns the time from the first start to the last end of a
// timeline's events (0 for an empty timeline).
func Makespan(tl *Timeline) float64 {
	if len(tl.Events) == 0 {
		return 0
	}
	first, last := math.Inf(1), math.Inf(-1)
	for _, e := range tl.Events {
		first, last = min(first, e.Start), max(last, e.End)
	}
	return last - first
}

// rankCompute returns each rank's compute events in the order they ran.
func rankCompute(tl *Timeline) [][]Event {
	out := make([][]Event, tl.Table.Ranks())
	for _, e := range tl.Events {
		if e.Action.Kind.IsCompute() && e.Rank >= 0 && e.Rank < len(out) {
			out[e.Rank] = append(out[e.Rank], e)
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
		for _, e := range evs {
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
	// PeakMemoryBytes is, under a MemoryModel, the static bytes of the
	// rank's stages plus the most activation bytes it held at once.
	PeakMemoryBytes float64
}

// RankStats returns each rank's statistics; with a nil mem the memory
// bytes are zero.
func RankStats(tl *Timeline, mem MemoryModel) []RankStat {
	span := Makespan(tl)
	waits := CommWait(tl)
	peaks := PeakActivations(tl)
	var bytes []float64
	if mem != nil {
		bytes = PeakMemory(tl, mem)
	}
	stats := make([]RankStat, tl.Table.Ranks())
	for r, evs := range rankCompute(tl) {
		st := RankStat{Rank: r, CommWait: waits[r], PeakActivations: peaks[r]}
		for _, e := range evs {
			st.Busy += e.End - e.Start
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
	rule := newActivationRule(tl.Table)
	peaks := make([]int, tl.Table.Ranks())
	for r, evs := range rankCompute(tl) {
		held := 0
		for _, e := range evs {
			held += rule.delta(e.Action)
			peaks[r] = max(peaks[r], held)
		}
	}
	return peaks
}

// PeakMemory returns, per rank, the static bytes of its stages plus the
// most activation bytes it held at once, as mem prices them.
func PeakMemory(tl *Timeline, mem MemoryModel) []float64 {
	t := tl.Table
	rule := newActivationRule(t)
	out := make([]float64, t.Ranks())
	for s, r := range t.Placement {
		out[r] += mem.StaticBytes(s)
	}
	for r, evs := range rankCompute(tl) {
		var held, peak float64
		for _, e := range evs {
			for _, sub := range singleActions(e.Action) {
				held += float64(rule.delta(sub)) * mem.ActivationBytes(sub.Stage)
			}
			peak = max(peak, held)
		}
		out[r] += peak
	}
	return out
}

// message names a transfer: direction (dirF or dirB), producing stage and
// microbatch.
type message struct{ dir, stage, mb int }

// messageOf returns the message a SEND event carries.
func messageOf(a pipeline.Action) (message, bool) {
	switch a.Kind {
	case pipeline.SendF:
		return message{dirF, a.Stage, a.Microbatch}, true
	case pipeline.SendB:
		return message{dirB, a.Stage, a.Microbatch}, true
	}
	return message{}, false
}

// remoteInputs lists the messages compute action a on rank r needs from
// other ranks.
func remoteInputs(t *pipeline.Table, r int, a pipeline.Action) []message {
	var out []message
	for _, sub := range singleActions(a) {
		s, m := sub.Stage, sub.Microbatch
		if s < 0 || s >= t.Stages() || m < 0 || m >= t.Microbatches {
			continue
		}
		rt := t.RouteOf(m)
		switch sub.Kind {
		case pipeline.Forward:
			if s > rt.First && t.Placement[s-1] != r {
				out = append(out, message{dirF, s - 1, m})
			}
		case pipeline.Backward, pipeline.BackwardInput:
			if s < rt.Last && t.Placement[s+1] != r {
				out = append(out, message{dirB, s + 1, m})
			}
		}
	}
	return out
}

// CommWait returns, per rank, the time its compute stream waited for
// transfers (see RankStat.CommWait). A timeline without transfer events,
// such as FromGrid's, waits for none.
func CommWait(tl *Timeline) []float64 {
	arrival := map[message]float64{}
	produced := map[message]float64{}
	start := math.Inf(1)
	for _, e := range tl.Events {
		start = min(start, e.Start)
		if msg, ok := messageOf(e.Action); ok {
			arrival[msg] = e.End
		}
		for _, sub := range singleActions(e.Action) {
			switch sub.Kind {
			case pipeline.Forward:
				produced[message{dirF, sub.Stage, sub.Microbatch}] = e.End
			case pipeline.Backward, pipeline.BackwardInput:
				produced[message{dirB, sub.Stage, sub.Microbatch}] = e.End
			}
		}
	}
	waits := make([]float64, tl.Table.Ranks())
	for r, evs := range rankCompute(tl) {
		prev := start
		for _, e := range evs {
			var wait float64
			for _, msg := range remoteInputs(tl.Table, r, e.Action) {
				arrived, sent := arrival[msg]
				if !sent {
					continue
				}
				from := max(prev, produced[msg])
				wait = max(wait, min(e.Start, arrived)-from)
			}
			waits[r] += wait
			prev = e.End
		}
	}
	return waits
}

// MessageSizer gives the bytes of the message a SEND action carries; the
// GPU timing model is one.
type MessageSizer interface {
	MessageBytes(a pipeline.Action) float64
}

// CommVolume is the point-to-point traffic of a timeline.
type CommVolume struct {
	// Messages is the number of transfers between ranks.
	Messages int
	// LinkTime is the sum of their durations.
	LinkTime float64
	// Bytes is the sum of their sizes, when a MessageSizer is known.
	Bytes float64
}

// Communication returns the traffic of a simulated timeline: one transfer
// per SEND event (implicit or explicit). sizer may be nil.
func Communication(tl *Timeline, sizer MessageSizer) CommVolume {
	var v CommVolume
	for _, e := range tl.Events {
		if _, ok := messageOf(e.Action); !ok {
			continue
		}
		v.Messages++
		v.LinkTime += e.End - e.Start
		if sizer != nil {
			v.Bytes += sizer.MessageBytes(e.Action)
		}
	}
	return v
}
