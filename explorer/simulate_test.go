package explorer

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	typed "github.com/pipelab/pipelab/request"
)

// The simulate endpoint needs no command line: a server New builds, whose
// Run is nil (it has no command line to call), answers a simulate with the
// library's typed report and its timeline.
func TestSimulateNeedsNoCommandLine(t *testing.T) {
	srv := New(Options{Slots: 1})
	if len(srv.Commands) != 0 {
		t.Fatal("New added commands beyond the library's")
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	body, _ := json.Marshal(map[string]any{"flags": map[string]string{"kind": "1f1b", "ranks": "3", "microbatches": "6"}})
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
