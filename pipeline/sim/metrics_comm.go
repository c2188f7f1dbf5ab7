package sim

import (
	"math"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// message names a transfer: direction (dirF or dirB), producing stage and
// microbatch.
type message struct{ dir, stage, mb int }

// messageKeys numbers the messages of a table densely, as the simulator's
// msgKey does, so that per-message state lives in slices rather than maps.
type messageKeys struct{ stages, mbs int }

// messageKeysOf numbers the messages of t; a timeline's table need not be
// valid, so a negative microbatch count counts as none.
func messageKeysOf(t *pipeline.Table) messageKeys {
	return messageKeys{stages: t.Stages(), mbs: max(t.Microbatches, 0)}
}

func (k messageKeys) count() int { return 2 * k.stages * k.mbs }

// key returns msg's number, or false for a stage or microbatch the table
// does not have.
func (k messageKeys) key(msg message) (int, bool) {
	if msg.stage < 0 || msg.stage >= k.stages || msg.mb < 0 || msg.mb >= k.mbs {
		return 0, false
	}
	return msg.dir*k.stages*k.mbs + msg.stage*k.mbs + msg.mb, true
}

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

// remoteInputs returns the messages compute action a on rank r needs from
// other ranks: at most one per single action, so at most two.
func remoteInputs(t *pipeline.Table, r int, a pipeline.Action) (inputs [2]message, n int) {
	for _, sub := range singleActions(a) {
		s, m := sub.Stage, sub.Microbatch
		if s < 0 || s >= t.Stages() || m < 0 || m >= t.Microbatches {
			continue
		}
		rt := t.RouteOf(m)
		switch sub.Kind {
		case pipeline.Forward:
			if s > rt.First && t.Placement[s-1] != r {
				inputs[n], n = message{dirF, s - 1, m}, n+1
			}
		case pipeline.Backward, pipeline.BackwardInput:
			if s < rt.Last && t.Placement[s+1] != r {
				inputs[n], n = message{dirB, s + 1, m}, n+1
			}
		}
	}
	return inputs, n
}

// messageTimes is when each message of a timeline was produced and, if it
// was sent, when it arrived; indexed by messageKeys.
type messageTimes struct {
	keys              messageKeys
	produced, arrival []float64
	sent              []bool
}

// timesOf reads the message times of a timeline. A message sent or
// produced twice keeps its last time in event order.
func timesOf(tl *Timeline) messageTimes {
	keys := messageKeysOf(tl.Table)
	mt := messageTimes{keys: keys, produced: make([]float64, keys.count()), arrival: make([]float64, keys.count()), sent: make([]bool, keys.count())}
	for i := range tl.Events {
		e := &tl.Events[i]
		if msg, ok := messageOf(e.Action); ok {
			if k, ok := keys.key(msg); ok {
				mt.arrival[k], mt.sent[k] = e.End, true
			}
		}
		for _, sub := range singleActions(e.Action) {
			var dir int
			switch sub.Kind {
			case pipeline.Forward:
				dir = dirF
			case pipeline.Backward, pipeline.BackwardInput:
				dir = dirB
			default:
				continue
			}
			if k, ok := keys.key(message{dir, sub.Stage, sub.Microbatch}); ok {
				mt.produced[k] = e.End
			}
		}
	}
	return mt
}

// CommWait returns, per rank, the time its compute stream waited for
// transfers (see RankStat.CommWait). A timeline without transfer events,
// such as FromGrid's, waits for none.
func CommWait(tl *Timeline) []float64 {
	return commWait(tl, rankCompute(tl))
}

// commWait is CommWait on the timeline's compute events split by rank.
func commWait(tl *Timeline, byRank [][]int32) []float64 {
	mt := timesOf(tl)
	start := math.Inf(1)
	for i := range tl.Events {
		e := &tl.Events[i]
		start = min(start, e.Start)
	}
	waits := make([]float64, tl.Table.Ranks())
	for r, evs := range byRank {
		prev := start
		for _, i := range evs {
			e := &tl.Events[i]
			var wait float64
			inputs, n := remoteInputs(tl.Table, r, e.Action)
			for _, msg := range inputs[:n] {
				k, ok := mt.keys.key(msg)
				if !ok || !mt.sent[k] {
					continue
				}
				from := max(prev, mt.produced[k])
				wait = max(wait, min(e.Start, mt.arrival[k])-from)
			}
			waits[r] += wait
			prev = e.End
		}
	}
	return waits
}

// CommVolume is the point-to-point traffic of a timeline.
type CommVolume struct {
	// Messages is the number of transfers between ranks.
	Messages int
	// LinkTime is the sum of their durations.
	LinkTime float64
	// Bytes is the sum of their sizes, when a cost.MessageSizer is known.
	Bytes float64
}

// Communication returns the traffic of a simulated timeline: one transfer
// per SEND event (implicit or explicit). sizer may be nil.
func Communication(tl *Timeline, sizer cost.MessageSizer) CommVolume {
	var v CommVolume
	for i := range tl.Events {
		e := &tl.Events[i]
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
