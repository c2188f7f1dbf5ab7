package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// The server's simulate runs the library's request (request.Simulate),
// not the command line: with runArgs replaced by a counter and simulate's
// command counting every run but the --help that gives the page its flag
// set, a simulate request and a trace download run neither, and the
// report is still the command line's.
func TestServeSimulateRunsNoCommandLine(t *testing.T) {
	srv := newServer(false)
	var ran, commandRuns int
	srv.Run = func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		ran++
		return runArgs(ctx, args, stdout, stderr)
	}
	c := commands["simulate"]
	run := c.run
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if !slices.Equal(args, []string{"--help"}) {
			commandRuns++
		}
		return run(ctx, args, stdout, stderr)
	}
	commands["simulate"] = c
	t.Cleanup(func() { c.run = run; commands["simulate"] = c })
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)

	args := []string{"--kind", "zb-h1", "--ranks", "4", "--microbatches", "8", "--policy", "ready", "--jitter", "0.2", "--iterations", "3", "--seed", "5"}
	status, ans := post(t, hs, "/api/simulate", map[string]any{"flags": flagsOf(args)})
	if status != http.StatusOK || ans.Timeline == nil {
		t.Fatalf("status %d, timeline %v: %s", status, ans.Timeline != nil, ans.Error)
	}
	b, _ := json.Marshal(map[string]any{"flags": flagsOf(args)})
	res, err := http.Post(hs.URL+"/api/download/trace", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	trace, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || len(trace) == 0 {
		t.Fatalf("trace download: status %d, %d bytes", res.StatusCode, len(trace))
	}
	if ran != 0 || commandRuns != 0 {
		t.Errorf("the server ran runArgs %d times and simulate's command %d times; want 0 and 0", ran, commandRuns)
	}
	// The command line itself, run after, gives the same report and the
	// same trace.
	want := cliJSON(t, append([]string{"simulate"}, args...)...)
	if got := decoded(t, ans.Report); !reflect.DeepEqual(got, want) {
		t.Errorf("the API's report differs from the command line's:\n%v\n%v", got, want)
	}
	path := filepath.Join(t.TempDir(), "trace.json")
	if code, line := cliError(append([]string{"simulate", "--trace", path}, args...)...); code != 0 {
		t.Fatalf("simulate --trace: exit %d: %s", code, line)
	}
	if cliTrace, err := os.ReadFile(path); err != nil || !bytes.Equal(trace, cliTrace) {
		t.Errorf("the trace download (%d bytes) differs from simulate --trace's (%d bytes, %v)", len(trace), len(cliTrace), err)
	}
	if commandRuns == 0 {
		t.Errorf("the command line run by this test was not counted: the counter sees nothing")
	}
}
