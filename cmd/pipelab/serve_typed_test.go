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
// not the command line: with simulate's command counting every run but
// the --help that gives the page its flag set, a simulate request and its
// downloads (trace, JSON and text report) do not run it, and give the
// command line's report and files.
func TestServeSimulateRunsNoCommandLine(t *testing.T) {
	hs, commandRuns := countingExplorer(t, "simulate")
	args := []string{"--kind", "zb-h1", "--ranks", "4", "--microbatches", "8", "--policy", "ready", "--jitter", "0.2", "--iterations", "3", "--seed", "5"}
	status, ans := post(t, hs, "/api/simulate", map[string]any{"flags": flagsOf(args)})
	if status != http.StatusOK || ans.Timeline == nil {
		t.Fatalf("status %d, timeline %v: %s", status, ans.Timeline != nil, ans.Error)
	}
	flags := flagsOf(args)
	trace, reportJSON, reportText := download(t, hs, "trace", flags), download(t, hs, "report.json", flags), download(t, hs, "report.txt", flags)
	if *commandRuns != 0 {
		t.Errorf("the server ran simulate's command %d times; want 0", *commandRuns)
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
		if want := cliOutput(t, append([]string{"simulate", "--format", format}, args...)...); !bytes.Equal(got, want) {
			t.Errorf("the %s download differs from simulate --format %s:\n%s\n%s", format, format, got, want)
		}
	}
	if *commandRuns == 0 {
		t.Errorf("the command line run by this test was not counted: the counter sees nothing")
	}
}

// countingExplorer is the explorer pipelab serve builds, with command's
// run (the command line's) counting its calls but the --help that gives
// its flag set (commandRuns), restored at the end. The explorer has no
// hook to call the command line with (no Server.Run): the counter shows
// the command line's code is not reached another way.
func countingExplorer(t *testing.T, command string) (hs *httptest.Server, commandRuns *int) {
	t.Helper()
	commandRuns = new(int)
	srv := newServer(false)
	c := commands[command]
	run := c.run
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if !slices.Equal(args, []string{"--help"}) {
			*commandRuns++
		}
		return run(ctx, args, stdout, stderr)
	}
	commands[command] = c
	t.Cleanup(func() { c.run = run; commands[command] = c })
	hs = httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return hs, commandRuns
}

// download posts the page's flags to a download and returns its body.
func download(t *testing.T, hs *httptest.Server, what string, flags map[string]string) []byte {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"flags": flags})
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

// cliOutput is a command line's standard output.
func cliOutput(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	return out.Bytes()
}

// The server's schedule, its grid and its CSV download, run the library's
// request (request.Schedule), not the command line, and print what the
// command line prints, byte for byte.
func TestServeScheduleRunsNoCommandLine(t *testing.T) {
	hs, commandRuns := countingExplorer(t, "schedule")
	for _, args := range [][]string{
		{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8"},
		{"--kind", "interleaved-1f1b", "--ranks", "2", "--microbatches", "4", "--chunks", "2"},
		{"--kind", "chimera", "--ranks", "4", "--microbatches", "4"},
	} {
		var ans struct {
			Text  string `json:"text"`
			Error string `json:"error"`
		}
		b, _ := json.Marshal(map[string]any{"flags": flagsOf(args)})
		res, err := http.Post(hs.URL+"/api/schedule", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(res.Body).Decode(&ans)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("%v: status %d, %v: %s", args, res.StatusCode, err, ans.Error)
		}
		csv := download(t, hs, "csv", flagsOf(args))
		if *commandRuns != 0 {
			t.Errorf("%v: the server ran schedule's command %d times; want 0", args, *commandRuns)
		}
		if want := cliOutput(t, append([]string{"schedule"}, args...)...); ans.Text != string(want) {
			t.Errorf("%v: the API's grid differs from the command line's:\n%s\n%s", args, ans.Text, want)
		}
		if want := cliOutput(t, append([]string{"schedule", "--format", "csv"}, args...)...); !bytes.Equal(csv, want) {
			t.Errorf("%v: the csv download differs from schedule --format csv:\n%s\n%s", args, csv, want)
		}
		if *commandRuns != 2 {
			t.Errorf("%v: the command lines run by this test were counted %d times, want 2", args, *commandRuns)
		}
		*commandRuns = 0
	}
}

// Every command the library types is served without the command line:
// with the command's run counted (countingExplorer), a request
// of each runs neither, and its answer is the command line's output (the
// report of --format json, or the text).
func TestServeLibraryCommandsRunNoCommandLine(t *testing.T) {
	for _, tc := range []struct {
		command string
		args    []string
		json    bool
	}{
		{"delays", []string{"--kind", "zb-h1", "--ranks", "3", "--microbatches", "6"}, true},
		{"presets", nil, true},
		{"compare", []string{"--ranks", "4", "--microbatches", "8", "--kind", "1f1b,zb-h1,interleaved-1f1b:2", "--fwd", "1", "--bwd", "2", "--wgrad", "1"}, true},
		{"tune", []string{"--model", "gpt-1.3b", "--ranks", "2", "--microbatches", "4", "--kind", "1f1b,zb-h1"}, true},
		{"train", []string{"--objective", "quadratic", "--method", "pipedream", "--stages", "2", "--n", "200", "--d", "4", "--total-microbatches", "40", "--step-size", "0.01"}, true},
		{"kinds", nil, false},
		{"schedule", []string{"--kind", "interleaved-1f1b", "--ranks", "2", "--microbatches", "4", "--chunks", "2"}, false},
	} {
		hs, commandRuns := countingExplorer(t, tc.command)
		status, ans := post(t, hs, "/api/"+tc.command, map[string]any{"flags": flagsOf(tc.args)})
		if status != http.StatusOK || *commandRuns != 0 {
			t.Fatalf("%s: status %d (%s); the command ran %d times; want 200 and 0", tc.command, status, ans.Error, *commandRuns)
		}
		args := append([]string{tc.command}, tc.args...)
		if tc.json {
			if got, want := decoded(t, ans.Report), cliJSON(t, args...); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: the API's report differs from the command line's:\n%v\n%v", tc.command, got, want)
			}
		} else if want := cliOutput(t, args...); ans.Text != string(want) {
			t.Errorf("%s: the API's text differs from the command line's:\n%s\n%s", tc.command, ans.Text, want)
		}
		if tc.command != "compare" {
			continue
		}
		before := *commandRuns
		files := map[string][]byte{"json": download(t, hs, "compare.json", flagsOf(tc.args)), "text": download(t, hs, "compare.txt", flagsOf(tc.args))}
		if *commandRuns != before {
			t.Errorf("compare's downloads ran the command %d times", *commandRuns-before)
		}
		for format, got := range files {
			if want := cliOutput(t, append(args, "--format", format)...); string(got) != string(want) {
				t.Errorf("the %s download differs from compare --format %s:\n%s\n%s", format, format, got, want)
			}
		}
	}
}
