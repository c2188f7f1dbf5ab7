package explorer

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/pipelab/pipelab/pipeline"
)

// Timeline is a simulated run in the columns the page draws from: one
// entry per event of the Chrome trace "pipelab simulate --trace" writes,
// compute events first in trace order, then transfers. Times are the
// trace's microseconds divided by 10⁶, the cost model's unit (seconds
// under the GPU model, steps under unit costs).
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
	// kind has none); Name is the action as the trace names it.
	Kind       []string `json:"kind"`
	Stage      []int    `json:"stage"`
	Microbatch []int    `json:"microbatch"`
	Name       []string `json:"name"`
}

func (e *Events) add(rank int, start, end float64, a pipeline.Action, name string) {
	e.Rank = append(e.Rank, rank)
	e.Start = append(e.Start, start)
	e.End = append(e.End, end)
	e.Kind = append(e.Kind, a.Kind.String())
	e.Stage = append(e.Stage, a.Stage)
	mb := -1
	if a.Kind.HasMicrobatch() || a.Kind == pipeline.OverlapFB {
		mb = a.Microbatch
	}
	e.Microbatch = append(e.Microbatch, mb)
	e.Name = append(e.Name, name)
}

// traceRecord is the part of a Chrome trace event the page needs.
type traceRecord struct {
	Name  string   `json:"name"`
	Phase string   `json:"ph"`
	TS    float64  `json:"ts"`
	Dur   *float64 `json:"dur"`
	PID   int      `json:"pid"`
}

// ReadTimeline reads the Chrome trace pipelab simulate --trace writes.
func ReadTimeline(r io.Reader) (*Timeline, error) {
	var tr struct {
		TraceEvents []traceRecord `json:"traceEvents"`
	}
	if err := json.NewDecoder(r).Decode(&tr); err != nil {
		return nil, fmt.Errorf("reading the simulated trace: %v", err)
	}
	tl := &Timeline{}
	for _, ev := range tr.TraceEvents {
		if ev.PID+1 > tl.Ranks {
			tl.Ranks = ev.PID + 1
		}
		if ev.Phase != "X" || ev.Dur == nil {
			continue
		}
		a, err := pipeline.ParseAction(ev.Name)
		if err != nil {
			return nil, fmt.Errorf("reading the simulated trace: event %q: %v", ev.Name, err)
		}
		start, end := ev.TS/1e6, (ev.TS+*ev.Dur)/1e6
		if a.Kind.IsCompute() {
			tl.Compute.add(ev.PID, start, end, a, ev.Name)
		} else {
			tl.Comm.add(ev.PID, start, end, a, ev.Name)
		}
	}
	return tl, nil
}
