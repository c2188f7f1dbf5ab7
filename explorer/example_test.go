package explorer_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/pipelab/pipelab/explorer"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// The page's columns of a simulated 1F1B: 2 ranks, 2 microbatches, unit
// costs (every compute a step, transfers free). Rank 0 runs F0 and F1,
// waits for rank 1's B0 (rank 1: F0 at 1, B0 at 2), runs B0 at 3, then
// waits for rank 1's B1 (F1 at 3, B1 at 4) and runs it at 5.
func ExampleTimelineOf() {
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 2, Microbatches: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	tl, err := sim.Simulate(tab, cost.Unit{}, sim.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	cols := explorer.TimelineOf(tl)
	fmt.Println("ranks:", cols.Ranks, "compute events:", len(cols.Compute.Rank))
	for i, r := range cols.Compute.Rank {
		if r == 0 {
			fmt.Printf("%s [%g, %g] ", cols.Compute.Name[i], cols.Compute.Start[i], cols.Compute.End[i])
		}
	}
	fmt.Println()
	// Output:
	// ranks: 2 compute events: 8
	// 0F0 [0, 1] 0F1 [1, 2] 0B0 [3, 4] 0B1 [5, 6]
}

// New builds the explorer's server from the library alone, as pipelab
// serve and the static WebAssembly build do: here a delays request through
// its handler. Asynchronous PipeDream on S = 2 stages has a steady-state
// maximum delay of ⌊S² − S/2⌋ = 3 (docs/reference.md §1.3).
func ExampleNew() {
	h := explorer.New(explorer.Options{Slots: 1}).Handler()
	req := httptest.NewRequest("POST", "http://127.0.0.1/api/delays", strings.NewReader(`{"flags": {"ranks": "2"}}`))
	req.RemoteAddr = "127.0.0.1:5555"
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var ans struct {
		Command string `json:"command"`
		Report  struct {
			Stages int `json:"stages"`
			Max    int `json:"max"`
		} `json:"report"`
	}
	if err := json.NewDecoder(rec.Body).Decode(&ans); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rec.Code, ans.Command, "stages:", ans.Report.Stages, "max delay:", ans.Report.Max)
	// Output: 200 pipelab delays --ranks=2 stages: 2 max delay: 3
}
