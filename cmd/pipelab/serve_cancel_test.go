package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pipelab/pipelab/explorer"
)

// queueStatus reads the server's GET /api/queue.
func queueStatus(t *testing.T, hs *httptest.Server) explorer.QueueStatus {
	t.Helper()
	res, err := http.Get(hs.URL + "/api/queue")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var st explorer.QueueStatus
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// waitQueue polls the queue until ok holds or within has passed, and
// returns how long that took and whether ok held.
func waitQueue(t *testing.T, hs *httptest.Server, within time.Duration, ok func(explorer.QueueStatus) bool) (time.Duration, bool) {
	t.Helper()
	start := time.Now()
	for time.Since(start) < within {
		if ok(queueStatus(t, hs)) {
			return time.Since(start), true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start), false
}

// A request whose client goes away stops its command: the slot (and its
// CPU) is free within a second of the cancellation, for every command
// whose run can be long. Each workload runs for several seconds or more
// if left alone (on the 2-core build machine: the simulate's 10⁵
// iterations and the tune each more than 15 s at load 6, the compare 3.7 s
// at load 6 and 7.8 s at load 12, the replay of d = 1024 over 20 s).
func TestServeCancelFreesTheSlot(t *testing.T) {
	if testing.Short() {
		t.Skip("runs five long commands for a moment each")
	}
	hs := newExplorer(t)
	for _, tc := range []struct {
		path string
		args []string
	}{
		{"/api/simulate", []string{"--kind", "1f1b", "--ranks", "32", "--microbatches", "256", "--iterations", "100000", "--jitter", "0.1"}},
		{"/api/simulate", []string{"--kind", "zb-h1", "--ranks", "32", "--microbatches", "256", "--iterations", "100000", "--jitter", "0.1", "--policy", "ready"}},
		{"/api/tune", []string{"--model", "gpt-1.3b", "--ranks", "16", "--microbatches", "256"}},
		{"/api/compare", []string{"--ranks", "64", "--microbatches", "2048"}},
		{"/api/train/stream", []string{"--objective", "quadratic", "--method", "pipedream", "--stages", "4", "--total-microbatches", "200000", "--step-size", "0.01", "--d", "1024", "--log-points", "20"}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		b, _ := json.Marshal(map[string]any{"flags": flagsOf(tc.args)})
		req, _ := http.NewRequestWithContext(ctx, "POST", hs.URL+tc.path, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		finished := make(chan int, 1)
		replaying := make(chan struct{})
		go func() {
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				finished <- 0
				return
			}
			defer res.Body.Close()
			if tc.path == "/api/train/stream" {
				first := true
				sseEvents(res.Body, func(event string, data json.RawMessage) bool {
					if event == "record" && first {
						first = false
						close(replaying)
					}
					return event != "problem" && event != "report"
				})
			}
			finished <- res.StatusCode
		}()
		if tc.path == "/api/train/stream" {
			// The replay's set-up (its data, its table) is not cut short;
			// the replay is, from its first record on.
			select {
			case <-replaying:
			case <-time.After(60 * time.Second):
				t.Fatalf("%v: no record in 60 s", tc.args)
			}
		}
		if _, ok := waitQueue(t, hs, 20*time.Second, func(st explorer.QueueStatus) bool { return st.Running == 1 }); !ok {
			t.Fatalf("%s %v: never started", tc.path, tc.args)
		}
		time.Sleep(300 * time.Millisecond) // well into its run
		select {
		case code := <-finished:
			t.Fatalf("%s %v: finished (status %d) before it was cancelled: not a long run", tc.path, tc.args, code)
		default:
		}
		cancel()
		if took, ok := waitQueue(t, hs, time.Second, func(st explorer.QueueStatus) bool { return st.Running == 0 }); !ok {
			t.Errorf("%s %v: still running %v after its client went", tc.path, tc.args, took)
			waitQueue(t, hs, 10*time.Minute, func(st explorer.QueueStatus) bool { return st.Running == 0 })
		}
		<-finished
	}
}
