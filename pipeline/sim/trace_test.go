package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

func TestWriteChromeTrace(t *testing.T) {
	tab := &pipeline.Table{Rows: [][]pipeline.Action{
		{pipeline.F(0, 0), pipeline.Act(pipeline.SendF, 0, 0), pipeline.B(0, 0)},
		{pipeline.Act(pipeline.RecvF, 1, 0), pipeline.F(1, 0), pipeline.B(1, 0)},
	}, Placement: []int{0, 1}, Microbatches: 1}
	tl := &Timeline{Table: tab, Events: []Event{
		{Rank: 0, Index: 0, Action: pipeline.F(0, 0), Start: 0, End: 0.5},
		{Rank: 0, Index: 1, Action: pipeline.Act(pipeline.SendF, 0, 0), Start: 0.5, End: 0.5},
		{Rank: 1, Index: 0, Action: pipeline.Act(pipeline.RecvF, 1, 0), Start: 0, End: 0.75},
		{Rank: 1, Index: 1, Action: pipeline.F(1, 0), Start: 0.75, End: 1.25},
		{Rank: 1, Index: 2, Action: pipeline.B(1, 0), Start: 1.25, End: 2.25},
		{Rank: 0, Index: 2, Action: pipeline.B(0, 0), Start: 2.25, End: 3.25},
	}}
	var buf bytes.Buffer
	if err := WriteChromeTrace(&buf, tl); err != nil {
		t.Fatal(err)
	}
	var got struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			TS   float64        `json:"ts"`
			Dur  *float64       `json:"dur"`
			PID  int            `json:"pid"`
			TID  int            `json:"tid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	processes := map[int]string{}
	threads := map[[2]int]string{}
	type slice struct {
		pid, tid int
		ts, dur  float64
	}
	slices := map[string]slice{}
	for _, e := range got.TraceEvents {
		switch {
		case e.Ph == "M" && e.Name == "process_name":
			processes[e.PID] = e.Args["name"].(string)
		case e.Ph == "M" && e.Name == "thread_name":
			threads[[2]int{e.PID, e.TID}] = e.Args["name"].(string)
		case e.Ph == "X":
			if e.Dur == nil {
				t.Errorf("%s has no dur", e.Name)
				continue
			}
			slices[e.Name] = slice{e.PID, e.TID, e.TS, *e.Dur}
		}
	}
	for r := range 2 {
		if want := "rank " + string(rune('0'+r)); processes[r] != want {
			t.Errorf("process %d named %q, want %q", r, processes[r], want)
		}
		if threads[[2]int{r, 0}] != "compute" || threads[[2]int{r, 1}] != "communication" {
			t.Errorf("rank %d threads %q, %q", r, threads[[2]int{r, 0}], threads[[2]int{r, 1}])
		}
	}
	if len(slices) != len(tl.Events) {
		t.Fatalf("%d slices, want one per event (%d)", len(slices), len(tl.Events))
	}
	for _, e := range tl.Events {
		s := slices[e.Action.String()]
		wantTID := 1
		if e.Action.Kind.IsCompute() {
			wantTID = 0
		}
		// Seconds are written as microseconds.
		if s.pid != e.Rank || s.tid != wantTID || math.Abs(s.ts-e.Start*1e6) > 1e-9 || math.Abs(s.dur-(e.End-e.Start)*1e6) > 1e-9 {
			t.Errorf("%v: got pid %d tid %d ts %g dur %g, want pid %d tid %d ts %g dur %g",
				e.Action, s.pid, s.tid, s.ts, s.dur, e.Rank, wantTID, e.Start*1e6, (e.End-e.Start)*1e6)
		}
	}
}

func TestWriteChromeTraceRejectsNaN(t *testing.T) {
	tl := &Timeline{Events: []Event{{Action: pipeline.F(0, 0), Start: 0, End: math.NaN()}}}
	if err := WriteChromeTrace(&bytes.Buffer{}, tl); err == nil {
		t.Error("a NaN time was written")
	}
}

func ExampleWriteChromeTrace() {
	tab := &pipeline.Table{Rows: [][]pipeline.Action{{pipeline.F(0, 0)}}, Placement: []int{0}, Microbatches: 1}
	tl := &Timeline{Table: tab, Events: []Event{{Rank: 0, Index: 0, Action: pipeline.F(0, 0), Start: 0.001, End: 0.003}}}
	var buf bytes.Buffer
	if err := WriteChromeTrace(&buf, tl); err != nil {
		fmt.Println(err)
		return
	}
	var tr struct {
		TraceEvents []struct {
			Name string  `json:"name"`
			Ph   string  `json:"ph"`
			TS   float64 `json:"ts"`
			Dur  float64 `json:"dur"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &tr); err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range tr.TraceEvents {
		if e.Ph == "X" {
			fmt.Printf("%s at %g µs for %g µs\n", e.Name, e.TS, e.Dur)
		}
	}
	// Output:
	// 0F0 at 1000 µs for 2000 µs
}
