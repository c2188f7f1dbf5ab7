package sim

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/pipelab/pipelab/pipeline"
)

// Threads of a rank's process in a Chrome trace.
const (
	traceComputeThread = 0
	traceCommThread    = 1
)

// traceEvent is one record of the Chrome trace event format ("Trace Event
// Format", the JSON that chrome://tracing and Perfetto load): "X" events
// are complete slices with a start and a duration in microseconds, "M"
// events name processes and threads.
type traceEvent struct {
	Name  string         `json:"name"`
	Cat   string         `json:"cat,omitempty"`
	Phase string         `json:"ph"`
	TS    float64        `json:"ts"`
	Dur   *float64       `json:"dur,omitempty"` // X events only, zero included
	PID   int            `json:"pid"`
	TID   int            `json:"tid"`
	Args  map[string]any `json:"args,omitempty"`
}

// chromeTrace is the object form of a trace file.
type chromeTrace struct {
	TraceEvents     []traceEvent `json:"traceEvents"`
	DisplayTimeUnit string       `json:"displayTimeUnit"`
}

// WriteChromeTrace writes tl as Chrome trace event JSON, which Perfetto
// and chrome://tracing load: each rank is a process "rank r" with a
// "compute" thread (F, B, I, W, OVERLAP_F_B) and a "communication" thread
// (SEND/RECV, REDUCE_GRAD, UNSHARD, RESHARD). Timeline time is taken as
// seconds, the GPU model's unit, and written in microseconds; a unit-time
// timeline therefore shows one step as one second.
func WriteChromeTrace(w io.Writer, tl *Timeline) error {
	ranks := 0
	if tl.Table != nil {
		ranks = tl.Table.Ranks()
	}
	for _, e := range tl.Events {
		ranks = max(ranks, e.Rank+1)
	}
	tr := chromeTrace{DisplayTimeUnit: "ms", TraceEvents: make([]traceEvent, 0, 3*ranks+len(tl.Events))}
	for r := range ranks {
		tr.TraceEvents = append(tr.TraceEvents,
			traceEvent{Name: "process_name", Phase: "M", PID: r, Args: map[string]any{"name": fmt.Sprintf("rank %d", r)}},
			traceEvent{Name: "process_sort_index", Phase: "M", PID: r, Args: map[string]any{"sort_index": r}},
			traceEvent{Name: "thread_name", Phase: "M", PID: r, TID: traceComputeThread, Args: map[string]any{"name": "compute"}},
			traceEvent{Name: "thread_name", Phase: "M", PID: r, TID: traceCommThread, Args: map[string]any{"name": "communication"}},
		)
	}
	for _, e := range tl.Events {
		tid := traceCommThread
		if e.Action.Kind.IsCompute() {
			tid = traceComputeThread
		}
		args := map[string]any{"stage": e.Action.Stage, "index": e.Index}
		if e.Action.Kind.HasMicrobatch() {
			args["microbatch"] = e.Action.Microbatch
		}
		dur := (e.End - e.Start) * 1e6
		tr.TraceEvents = append(tr.TraceEvents, traceEvent{
			Name: e.Action.String(), Cat: traceCategory(e.Action.Kind), Phase: "X",
			TS: e.Start * 1e6, Dur: &dur, PID: e.Rank, TID: tid, Args: args,
		})
	}
	enc := json.NewEncoder(w)
	if err := enc.Encode(tr); err != nil {
		return fmt.Errorf("sim: writing Chrome trace: %w", err)
	}
	return nil
}

// traceCategory names the kind for the trace's category filter.
func traceCategory(k pipeline.Kind) string {
	if k == pipeline.OverlapFB {
		return "F&B"
	}
	return k.String()
}
