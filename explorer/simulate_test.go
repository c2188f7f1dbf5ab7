package explorer

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	typed "github.com/pipelab/pipelab/request"
)

// The simulate endpoint needs no command line: a server whose Run is nil
// (any call would panic) answers a simulate with the typed report's JSON
// and its timeline, here a request decoded by hand into request.Simulate.
func TestSimulateNeedsNoCommandLine(t *testing.T) {
	srv := &Server{Flags: fakeFlags, Slots: 1,
		Simulate: func(ctx context.Context, args []string, stderr io.Writer) (typed.SimulateReport, int) {
			fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
			kind, p := fs.String("kind", "", ""), fs.Int("ranks", 0, "")
			fs.String("format", "", "")
			if len(args) == 0 || args[0] != "simulate" || fs.Parse(args[1:]) != nil {
				fmt.Fprintf(stderr, "pipelab simulate: unexpected %q\n", args)
				return typed.SimulateReport{}, 2
			}
			tab, err := pipeline.Generate(*kind, pipeline.Shape{Ranks: *p, Microbatches: 2 * *p})
			if err != nil {
				fmt.Fprintf(stderr, "pipelab simulate: %v\n", err)
				return typed.SimulateReport{}, 2
			}
			rep, err := typed.Simulate(ctx, typed.SimulateRequest{Kind: *kind, Table: tab, Pricing: typed.Pricing{Cost: cost.Unit{}, Name: "unit"}})
			if err != nil {
				return rep, 1
			}
			return rep, 0
		}}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	body, _ := json.Marshal(map[string]any{"flags": map[string]string{"kind": "1f1b", "ranks": "3"}})
	req, _ := http.NewRequest("POST", hs.URL+"/api/simulate", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var ans struct {
		Report   typed.SimulateReport `json:"report"`
		Timeline *Timeline            `json:"timeline"`
		Error    string               `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&ans); err != nil {
		t.Fatal(err)
	}
	// 1F1B under unit costs: 2(M + P − 1) steps, M = 2P = 6.
	if res.StatusCode != http.StatusOK || ans.Timeline == nil || ans.Report.Makespan != 2*(6+3-1) {
		t.Fatalf("status %d (%s), timeline %v, makespan %v; want 200, a timeline, 16", res.StatusCode, ans.Error, ans.Timeline != nil, ans.Report.Makespan)
	}
	if ans.Timeline.Ranks != 3 || len(ans.Report.Ranks) != 3 {
		t.Errorf("timeline of %d ranks, report of %d; want 3", ans.Timeline.Ranks, len(ans.Report.Ranks))
	}
}
