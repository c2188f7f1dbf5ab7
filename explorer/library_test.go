package explorer

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	typed "github.com/pipelab/pipelab/request"
)

// postJSON posts body to path and decodes the answer.
func postJSON(t *testing.T, hs *httptest.Server, path string, body any) (int, map[string]json.RawMessage) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", hs.URL+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var ans map[string]json.RawMessage
	if err := json.NewDecoder(res.Body).Decode(&ans); err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, ans
}

// A server New builds has no hook into a command line (Run, Train and
// Flags nil: this package links no command line to call) and serves every
// command the library types over HTTP, each answer checked against a
// closed form or the library's own tables.
func TestNewServesEveryLibraryCommand(t *testing.T) {
	srv := New(Options{Slots: 1})
	if len(srv.Commands) != 0 {
		t.Fatal("New added commands beyond the library's")
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	flags := func(kv ...string) map[string]any {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return map[string]any{"flags": m}
	}

	// simulate: 1F1B at unit cost takes 2(M + P − 1) steps (Narayanan et
	// al., SC21, §2.2), 10 for P = 2, M = 4.
	status, ans := postJSON(t, hs, "/api/simulate", flags("kind", "1f1b", "ranks", "2", "microbatches", "4"))
	var sim typed.SimulateReport
	if status != http.StatusOK || json.Unmarshal(ans["report"], &sim) != nil || sim.Makespan != 10 {
		t.Errorf("simulate: status %d, makespan %v (%s); want 200 and 2(M+P-1) = 10", status, sim.Makespan, ans["error"])
	}

	// schedule: GPipe's grid, every forward then every backward (Huang et
	// al. 2019), as request.ExampleSchedule draws it.
	status, ans = postJSON(t, hs, "/api/schedule", flags("kind", "gpipe", "ranks", "2", "microbatches", "2"))
	var text string
	if json.Unmarshal(ans["text"], &text); status != http.StatusOK || text != "rank 0: F1 F2  .  . B1 B2\nrank 1:  . F1 F2 B1 B2  .\n" {
		t.Errorf("schedule: status %d, text %q", status, text)
	}

	// delays: asynchronous PipeDream on S stages has a steady-state
	// maximum delay of ⌊S² − S/2⌋ (docs/reference.md §1.3): 3 for S = 2.
	status, ans = postJSON(t, hs, "/api/delays", flags("ranks", "2"))
	var d typed.DelaysReport
	if status != http.StatusOK || json.Unmarshal(ans["report"], &d) != nil || d.Max != 3 || d.Stages != 2 {
		t.Errorf("delays: status %d, %d stages, max %d (%s); want 200, 2 and ⌊S²−S/2⌋ = 3", status, d.Stages, d.Max, ans["error"])
	}

	// presets and kinds: the library's own tables.
	status, ans = postJSON(t, hs, "/api/presets", flags())
	var p typed.PresetsReport
	if status != http.StatusOK || json.Unmarshal(ans["report"], &p) != nil || len(p.GPUs) != len(typed.Presets().GPUs) || len(p.GPUs) == 0 {
		t.Errorf("presets: status %d, %d GPUs; want 200 and the library's %d", status, len(p.GPUs), len(typed.Presets().GPUs))
	}
	status, ans = postJSON(t, hs, "/api/kinds", flags())
	json.Unmarshal(ans["text"], &text)
	if lines := strings.Split(strings.TrimSpace(text), "\n"); status != http.StatusOK || len(lines) != len(typed.Kinds()) || !strings.HasPrefix(lines[len(lines)-1], "zb-auto ") {
		t.Errorf("kinds: status %d, %d lines; want 200 and the library's %d, zb-auto last", status, len(lines), len(typed.Kinds()))
	}

	// check reads a file named on its command line, which a request
	// cannot name: refused as bad input, not run.
	if status, ans = postJSON(t, hs, "/api/check", flags()); status != http.StatusBadRequest {
		t.Errorf("check without a file: status %d (%s), want 400", status, ans["error"])
	}
	// compare: GPipe and 1F1B both take 2(M + P − 1) unit steps (GPipe,
	// Huang et al. 2019; 1F1B, Narayanan et al. 2021), so they tie at rank
	// 1 in simulation.
	status, ans = postJSON(t, hs, "/api/compare", flags("kind", "gpipe,1f1b", "ranks", "2", "microbatches", "4"))
	var c typed.CompareReport
	if status != http.StatusOK || json.Unmarshal(ans["report"], &c) != nil || len(c.Families) != 2 {
		t.Fatalf("compare: status %d (%s), %d families; want 200 and 2", status, ans["error"], len(c.Families))
	}
	for _, r := range c.Families {
		if r.Makespan == nil || *r.Makespan != 10 || r.MakespanRank != 1 {
			t.Errorf("compare %s: makespan %v, rank %d; want 2(M+P-1) = 10, rank 1", r.Kind, r.Makespan, r.MakespanRank)
		}
	}
	// tune: the search refuses a model without its GPU model's name.
	if status, ans = postJSON(t, hs, "/api/tune", flags("ranks", "2")); status != http.StatusBadRequest {
		t.Errorf("tune without --model: status %d (%s), want 400", status, ans["error"])
	}
	// train, which the library does not type yet, is refused by this
	// server, which has no command line to run it.
	if status, _ = postJSON(t, hs, "/api/train", flags()); status != http.StatusNotImplemented {
		t.Errorf("train on a server without a command line: status %d, want 501", status)
	}
}

// Asking for a command's help is a request no command can answer: 400
// naming the flag, not 500.
func TestHelpFlagIsBadRequest(t *testing.T) {
	hs := httptest.NewServer(New(Options{Slots: 1}).Handler())
	defer hs.Close()
	for _, command := range []string{"simulate", "schedule", "compare", "tune", "delays", "presets", "kinds"} {
		status, ans := postJSON(t, hs, "/api/"+command, map[string]any{"flags": map[string]string{"help": "true"}})
		var flag string
		json.Unmarshal(ans["flag"], &flag)
		if status != http.StatusBadRequest || flag != "help" {
			t.Errorf("%s --help: status %d, flag %q (%s); want 400 naming help", command, status, flag, ans["error"])
		}
	}
}
