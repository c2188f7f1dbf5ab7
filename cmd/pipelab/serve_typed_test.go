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
// set, a simulate request and its downloads (trace, JSON and text report) run
// neither, and give the command line's report and files.
func TestServeSimulateRunsNoCommandLine(t *testing.T) {
	srv := newServer(false)
	var ran, commandRuns int
	srv.Run = func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		ran++
		return runArgs(ctx, args, stdout, stderr)
	}
	c := commands["simulate"]
	simulateRun := c.run
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if !slices.Equal(args, []string{"--help"}) {
			commandRuns++
		}
		return simulateRun(ctx, args, stdout, stderr)
	}
	commands["simulate"] = c
	t.Cleanup(func() { c.run = simulateRun; commands["simulate"] = c })
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)

	args := []string{"--kind", "zb-h1", "--ranks", "4", "--microbatches", "8", "--policy", "ready", "--jitter", "0.2", "--iterations", "3", "--seed", "5"}
	status, ans := post(t, hs, "/api/simulate", map[string]any{"flags": flagsOf(args)})
	if status != http.StatusOK || ans.Timeline == nil {
		t.Fatalf("status %d, timeline %v: %s", status, ans.Timeline != nil, ans.Error)
	}
	download := func(what string) []byte {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"flags": flagsOf(args)})
		res, err := http.Post(hs.URL+"/api/download/"+what, "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK || len(body) == 0 {
			t.Fatalf("%s download: status %d, %d bytes", what, res.StatusCode, len(body))
		}
		return body
	}
	trace, reportJSON, reportText := download("trace"), download("report.json"), download("report.txt")
	if ran != 0 || commandRuns != 0 {
		t.Errorf("the server ran runArgs %d times and simulate's command %d times; want 0 and 0", ran, commandRuns)
	}
	// The command line itself, run after, gives the same report, the same
	// files (trace, JSON, text) byte for byte.
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
	for format, got := range map[string][]byte{"json": reportJSON, "text": reportText} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"simulate", "--format", format}, args...), &out, &errb); code != 0 {
			t.Fatalf("simulate --format %s: exit %d: %s", format, code, errb.String())
		}
		if !bytes.Equal(got, out.Bytes()) {
			t.Errorf("the %s download differs from simulate --format %s:\n%s\n%s", format, format, got, out.Bytes())
		}
	}
	if commandRuns == 0 {
		t.Errorf("the command line run by this test was not counted: the counter sees nothing")
	}
}
