package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pipelab/pipelab/explorer"
	"github.com/pipelab/pipelab/request"
)

// The explorer's API runs the command line's own code: these tests post
// the page's requests to it and run the same command lines through run,
// as the binary would, and compare what comes back.

func newExplorer(t *testing.T) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(newServer(false).Handler())
	t.Cleanup(hs.Close)
	return hs
}

type apiAnswer struct {
	Command  string             `json:"command"`
	Report   json.RawMessage    `json:"report"`
	Timeline *explorer.Timeline `json:"timeline"`
	Text     string             `json:"text"`
	Error    string             `json:"error"`
	Flag     string             `json:"flag"`
}

func post(t *testing.T, hs *httptest.Server, path string, body any) (int, apiAnswer) {
	t.Helper()
	b, _ := json.Marshal(body)
	res, err := http.Post(hs.URL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var ans apiAnswer
	if err := json.NewDecoder(res.Body).Decode(&ans); err != nil {
		t.Fatalf("%s: answer is not JSON: %v", path, err)
	}
	return res.StatusCode, ans
}

// cliJSON runs a command line and returns its JSON report decoded.
func cliJSON(t *testing.T, args ...string) any {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append(args, "--format", "json"), &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	var v any
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func decoded(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("report %q: %v", raw, err)
	}
	return v
}

// flagsOf turns --name value pairs into the page's flags.
func flagsOf(args []string) map[string]string {
	flags := map[string]string{}
	for i := 0; i+1 < len(args); i += 2 {
		flags[strings.TrimPrefix(args[i], "--")] = args[i+1]
	}
	return flags
}

func TestServeReportsEqualCommandLine(t *testing.T) {
	hs := newExplorer(t)
	for _, tc := range []struct {
		command string
		args    []string
	}{
		{"simulate", []string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8"}},
		{"simulate", []string{"--kind", "interleaved-1f1b", "--ranks", "4", "--microbatches", "8", "--chunks", "2", "--fwd", "1.5", "--bwd", "3", "--comm", "0.25"}},
		{"simulate", []string{"--kind", "zb-v", "--ranks", "4", "--microbatches", "8", "--model", "gpt-1.3b", "--gpu", "a100", "--link", "nvlink"}},
		{"simulate", []string{"--kind", "zb-h1", "--ranks", "4", "--microbatches", "8", "--policy", "ready", "--hint", "bfw", "--jitter", "0.3", "--iterations", "5", "--seed", "7"}},
		{"compare", []string{"--ranks", "4", "--microbatches", "8", "--fwd", "1", "--bwd", "2", "--wgrad", "1", "--comm", "0.1"}},
		{"tune", []string{"--model", "gpt-1.3b", "--ranks", "2", "--microbatches", "4", "--kind", "1f1b,zb-h1"}},
		{"delays", []string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8"}},
		{"delays", []string{"--ranks", "3"}},
		{"presets", nil},
	} {
		status, ans := post(t, hs, "/api/"+tc.command, map[string]any{"flags": flagsOf(tc.args)})
		if status != http.StatusOK {
			t.Fatalf("%s %v: status %d: %s", tc.command, tc.args, status, ans.Error)
		}
		want := cliJSON(t, append([]string{tc.command}, tc.args...)...)
		if got := decoded(t, ans.Report); !reflect.DeepEqual(got, want) {
			t.Errorf("%s %v: the API's report differs from the command line's:\n%v\n%v", tc.command, tc.args, got, want)
		}
	}
}

// The timeline the page draws is the trace simulate writes: its last end
// is the makespan and each rank's busy time is the sum of its compute
// events' durations, as the report says (up to the trace's microsecond
// rounding: the GPU model's times are seconds).
func TestServeTimelineAgreesWithReport(t *testing.T) {
	hs := newExplorer(t)
	for _, args := range [][]string{
		{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8"},
		{"--kind", "zb-v", "--ranks", "4", "--microbatches", "8", "--model", "gpt-1.3b"},
	} {
		status, ans := post(t, hs, "/api/simulate", map[string]any{"flags": flagsOf(args)})
		if status != http.StatusOK || ans.Timeline == nil {
			t.Fatalf("%v: status %d, %s", args, status, ans.Error)
		}
		var rep request.SimulateReport
		if err := json.Unmarshal(ans.Report, &rep); err != nil {
			t.Fatal(err)
		}
		tl := ans.Timeline
		end := 0.0
		busy := make([]float64, tl.Ranks)
		for i := range tl.Compute.Rank {
			end = max(end, tl.Compute.End[i])
			busy[tl.Compute.Rank[i]] += tl.Compute.End[i] - tl.Compute.Start[i]
		}
		for i := range tl.Comm.Rank {
			end = max(end, tl.Comm.End[i])
		}
		close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
		if !close(end, rep.Makespan) {
			t.Errorf("%v: the timeline ends at %v, the makespan is %v", args, end, rep.Makespan)
		}
		for _, r := range rep.Ranks {
			if !close(busy[r.Rank], r.Busy) {
				t.Errorf("%v: rank %d busy %v in the timeline, %v in the report", args, r.Rank, busy[r.Rank], r.Busy)
			}
		}
	}
}

// cliError is the first line a command line prints on stderr, and its
// exit status.
func cliError(args ...string) (int, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	line, _, _ := strings.Cut(errb.String(), "\n")
	return code, line
}

func TestServeBadInputGivesCommandLineError(t *testing.T) {
	hs := newExplorer(t)
	for _, tc := range []struct {
		command string
		args    []string
		flag    string
	}{
		{"simulate", []string{"--kind", "1f1b", "--ranks", "0", "--microbatches", "8"}, "ranks"},
		{"simulate", []string{"--kind", "nope", "--ranks", "4", "--microbatches", "8"}, "kind"},
		{"simulate", []string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--fwd", "-1", "--bwd", "1"}, "fwd"},
		{"simulate", []string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--jitter", "abc"}, "jitter"},
		{"compare", []string{"--ranks", "4", "--microbatches", "8", "--kind", "1f1b,zz"}, "kind"},
		{"tune", []string{"--ranks", "4"}, "model"},
	} {
		status, ans := post(t, hs, "/api/"+tc.command, map[string]any{"flags": flagsOf(tc.args)})
		code, want := cliError(append([]string{tc.command}, tc.args...)...)
		if code != 2 || status != http.StatusBadRequest || ans.Error != want || ans.Flag != tc.flag {
			t.Errorf("%s %v: status %d, error %q beside --%s; the command line exits %d with %q (want beside --%s)",
				tc.command, tc.args, status, ans.Error, ans.Flag, code, want, tc.flag)
		}
	}
}

// A dropped CSV is written under its own name, so that its errors name it
// as the command line does when run on the file in the current folder.
func TestServeUploadedScheduleErrorsNameTheFile(t *testing.T) {
	hs := newExplorer(t)
	bad := "0F0,0F1,,0B0,,0B1\n,1F0,1X0,1F1,1B1,\n"
	status, ans := post(t, hs, "/api/simulate", map[string]any{"files": map[string]any{"schedule": map[string]string{"name": "mine.csv", "text": bad}}})
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("mine.csv", []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	code, want := cliError("simulate", "--schedule", "mine.csv")
	if code != 2 || status != http.StatusBadRequest || ans.Error != want || ans.Flag != "schedule" || !strings.Contains(want, "mine.csv:2") {
		t.Errorf("status %d, error %q; the command line exits %d with %q", status, ans.Error, code, want)
	}
	good := "0F0,0F1,,0B0,,0B1\n,1F0,1B0,1F1,1B1,\n"
	status, ans = post(t, hs, "/api/simulate", map[string]any{"files": map[string]any{"schedule": map[string]string{"name": "good.csv", "text": good}}})
	if err := os.WriteFile("good.csv", []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	if status != http.StatusOK || !reflect.DeepEqual(decoded(t, ans.Report), cliJSON(t, "simulate", "--schedule", "good.csv")) {
		t.Errorf("status %d (%s): the dropped CSV's report differs from the command line's", status, ans.Error)
	}
}

// A request beyond the memory limit is refused by the command's size guard
// before anything is allocated: at once, with the command line's words,
// as 413 (fault.TooLarge) where the command line exits 2.
func TestServeRefusesOversize(t *testing.T) {
	hs := newExplorer(t)
	args := []string{"--kind", "1f1b", "--ranks", "100000", "--microbatches", "1000000"}
	start := time.Now()
	status, ans := post(t, hs, "/api/simulate", map[string]any{"flags": flagsOf(args)})
	took := time.Since(start)
	code, want := cliError(append([]string{"simulate"}, args...)...)
	if status != http.StatusRequestEntityTooLarge || code != 2 || ans.Error != want || !strings.Contains(want, "the limit is") {
		t.Errorf("status %d, error %q; the command line exits %d with %q", status, ans.Error, code, want)
	}
	// 10¹¹ cells at 600 B each could not have been allocated in any time.
	if took > 10*time.Second {
		t.Errorf("the refusal took %v", took)
	}
}

func TestServeRefusesFileWritingFlagsAndForeignHosts(t *testing.T) {
	hs := newExplorer(t)
	status, ans := post(t, hs, "/api/simulate", map[string]any{"flags": map[string]string{"kind": "1f1b", "ranks": "2", "microbatches": "2", "trace": "/tmp/x.json"}})
	if status != http.StatusBadRequest || ans.Flag != "trace" {
		t.Errorf("--trace from the page: status %d, %q", status, ans.Error)
	}
	req, _ := http.NewRequest("POST", hs.URL+"/api/kinds", strings.NewReader(`{"flags":{}}`))
	req.Host = "attacker.example:80"
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a request for host attacker.example: status %d, want 403", res.StatusCode)
	}
	res, err = http.Post(hs.URL+"/api/kinds", "text/plain", strings.NewReader(`{"flags":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("a text/plain post (what a cross-site form sends): status %d, want 415", res.StatusCode)
	}
}

// sseEvents reads server-sent events until the stream ends or stop says so.
func sseEvents(r io.Reader, each func(event string, data json.RawMessage) bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var event string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if !each(event, json.RawMessage(strings.TrimPrefix(line, "data: "))) {
				return
			}
		}
	}
}

// The streamed records are the report's curve, and the report is the
// command line's.
func TestServeTrainStreamsTheCommandLinesCurve(t *testing.T) {
	hs := newExplorer(t)
	args := []string{"--objective", "quadratic", "--method", "pipedream", "--kind", "1f1b", "--stages", "4", "--total-microbatches", "400", "--step-size", "0.01", "--log-points", "20"}
	b, _ := json.Marshal(map[string]any{"flags": flagsOf(args)})
	res, err := http.Post(hs.URL+"/api/train/stream", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var records []any
	var report any
	sseEvents(res.Body, func(event string, data json.RawMessage) bool {
		switch event {
		case "record":
			records = append(records, decoded(t, data))
		case "report":
			report = decoded(t, data)
		case "problem":
			t.Fatalf("problem: %s", data)
		}
		return true
	})
	want := cliJSON(t, append([]string{"train"}, args...)...)
	if !reflect.DeepEqual(report, want) {
		t.Fatalf("the streamed report differs from the command line's:\n%v\n%v", report, want)
	}
	curve := want.(map[string]any)["curve"].([]any)
	if len(curve) < 10 || !reflect.DeepEqual(records, curve) {
		t.Errorf("streamed %d records, the command line's curve has %d; they differ", len(records), len(curve))
	}
}

// The API's cost over the command line's for the 64 × 1024 schedule the
// page must draw: "cli" runs simulate --format json, "api" posts the page's
// request (the same run, its timeline's columns encoded as JSON beside the
// report).
func BenchmarkServeSimulate64x1024(b *testing.B) {
	args := []string{"--kind", "1f1b", "--ranks", "64", "--microbatches", "1024"}
	b.Run("cli", func(b *testing.B) {
		for b.Loop() {
			var out, errb bytes.Buffer
			if code := run(append([]string{"simulate"}, append(args, "--format", "json")...), &out, &errb); code != 0 {
				b.Fatal(errb.String())
			}
		}
	})
	b.Run("api", func(b *testing.B) {
		h := newServer(false).Handler()
		body, _ := json.Marshal(map[string]any{"flags": flagsOf(args)})
		for b.Loop() {
			req := httptest.NewRequest("POST", "http://127.0.0.1/api/simulate", bytes.NewReader(body))
			req.RemoteAddr = "127.0.0.1:5555" // the guard wants a loopback peer
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatal(rec.Body.String())
			}
		}
	})
}

// The inputs the page uploads (a costs CSV, a hardware file, a HuggingFace
// config) give the command line's report for the same files.
func TestServeUploadedInputsEqualCommandLine(t *testing.T) {
	hs := newExplorer(t)
	costs, err := os.ReadFile("../../examples/zb-1.5b-costs.csv")
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string]string{
		"zb-1.5b-costs.csv": string(costs),
		"hw.yaml": "gpu: {name: g, peak_flops: 312e12, efficiency: 0.5, memory_bytes: 80e9}\nlink: {name: fast, latency: 1e-5, bandwidth: 1e11}\n" +
			"ranks_per_node: 2\ninter_node_link: {name: slow, latency: 1e-3, bandwidth: 1e10}\n",
		"config.json": `{"model_type": "llama", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 8, "intermediate_size": 688, "vocab_size": 1000}`,
	}
	dir := t.TempDir()
	t.Chdir(dir)
	for name, text := range inputs {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	shape := map[string]string{"kind": "1f1b", "ranks": "8", "microbatches": "16"}
	for _, tc := range []struct {
		files map[string]string // flag → file name
		flags map[string]string
	}{
		{map[string]string{"costs": "zb-1.5b-costs.csv"}, nil},
		{map[string]string{"hardware": "hw.yaml"}, map[string]string{"model": "gpt-1.3b"}},
		{map[string]string{"model-config": "config.json"}, nil},
	} {
		flags := map[string]string{}
		args := []string{"simulate"}
		for k, v := range shape {
			flags[k] = v
			args = append(args, "--"+k, v)
		}
		for k, v := range tc.flags {
			flags[k] = v
			args = append(args, "--"+k, v)
		}
		files := map[string]any{}
		for flag, name := range tc.files {
			files[flag] = map[string]string{"name": name, "text": inputs[name]}
			args = append(args, "--"+flag, name)
		}
		status, ans := post(t, hs, "/api/simulate", map[string]any{"flags": flags, "files": files})
		if status != http.StatusOK {
			t.Fatalf("%v: status %d: %s", tc.files, status, ans.Error)
		}
		if got, want := decoded(t, ans.Report), cliJSON(t, args...); !reflect.DeepEqual(got, want) {
			t.Errorf("%v: the API's report differs from the command line's:\n%v\n%v", tc.files, got, want)
		}
	}
}
