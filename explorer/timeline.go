package explorer

import (
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// Timeline is a simulated run in the columns the page draws from: one
// entry per event of the simulator's timeline, compute events first in
// timeline order, then transfers. Times are the simulator's own, in the
// cost model's unit (seconds under the GPU model, steps under unit
// costs).
type Timeline struct {
	Ranks int `json:"ranks"`
	// Compute are the compute events (F, B, I, W, OVERLAP_F_B), Comm the
	// transfers and other communication.
	Compute Events `json:"compute"`
	Comm    Events `json:"comm"`
}

// Events are events as columns, so that a long timeline is a few arrays
// rather than an object per event.
type Events struct {
	Rank  []int     `json:"rank"`
	Start []float64 `json:"start"`
	End   []float64 `json:"end"`
	// Kind is the action's kind as PyTorch writes it (F, B, I, W, SEND_F,
	// ...), Stage its stage and Microbatch its microbatch (-1 where the
	// kind has none); Name is the action as the Chrome trace names it.
	Kind       []string `json:"kind"`
	Stage      []int    `json:"stage"`
	Microbatch []int    `json:"microbatch"`
	Name       []string `json:"name"`
}

func (e *Events) add(ev sim.Event) {
	a := ev.Action
	e.Rank = append(e.Rank, ev.Rank)
	e.Start = append(e.Start, ev.Start)
	e.End = append(e.End, ev.End)
	e.Kind = append(e.Kind, a.Kind.String())
	e.Stage = append(e.Stage, a.Stage)
	mb := -1
	if a.Kind.HasMicrobatch() || a.Kind == pipeline.OverlapFB {
		mb = a.Microbatch
	}
	e.Microbatch = append(e.Microbatch, mb)
	e.Name = append(e.Name, a.String())
}

// TimelineOf gives the page's columns of a simulated timeline: its events
// as they are, with their exact times (no trace file between, whose
// microseconds would round them), and its ranks (the table's, or the
// events', whichever is more, as the Chrome trace counts them).
func TimelineOf(tl *sim.Timeline) *Timeline {
	out := &Timeline{}
	if tl.Table != nil {
		out.Ranks = tl.Table.Ranks()
	}
	for _, e := range tl.Events {
		out.Ranks = max(out.Ranks, e.Rank+1)
		if e.Action.Kind.IsCompute() {
			out.Compute.add(e)
		} else {
			out.Comm.add(e)
		}
	}
	return out
}
