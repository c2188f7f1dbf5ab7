package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/pipelab/pipelab/request/train"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pipelab/pipelab/explorer"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/request"
)

// No request names a path of the server's: a file a command reads comes
// only as an upload (the flags that name one take their keywords as
// values, nothing else), a file it writes and the server's own flags not
// at all, and --help is a flag the page cannot set (a 400, not the help
// text where JSON was due).
func TestServeRefusesServerPaths(t *testing.T) {
	hs := newExplorer(t)
	train := map[string]string{"objective": "charlm", "method": "pipedream", "stages": "2", "total-microbatches": "8"}
	for _, tc := range []struct {
		command string
		flags   map[string]string
		flag    string
	}{
		{"train", map[string]string{"corpus": "/etc/os-release"}, "corpus"},
		{"train", map[string]string{"objective": "quadratic", "method": "rpd", "delays": "/etc/os-release"}, "delays"},
		{"train", map[string]string{"objective": "logistic", "data": "/etc/os-release", "labels": "/etc/os-release"}, "data"},
		{"simulate", map[string]string{"schedule": "/etc/os-release"}, "schedule"},
		{"simulate", map[string]string{"kind": "1f1b", "ranks": "2", "microbatches": "2", "model-config": "/etc/os-release"}, "model-config"},
		{"simulate", map[string]string{"kind": "1f1b", "ranks": "2", "microbatches": "2", "gantt": "/tmp/x.png"}, "gantt"},
		{"tune", map[string]string{"model": "gpt-1.3b", "ranks": "2", "out": "/tmp/x.csv"}, "out"},
		{"tune", map[string]string{"ranks": "2", "profile": "/etc/os-release"}, "profile"},
		{"simulate", map[string]string{"kind": "1f1b", "ranks": "2", "microbatches": "2", "max-memory": "1T"}, "max-memory"},
		{"simulate", map[string]string{"kind": "1f1b", "ranks": "2", "microbatches": "2", "format": "text"}, "format"},
		{"simulate", map[string]string{"help": "true"}, "help"},
		{"kinds", map[string]string{"h": "true"}, "h"},
	} {
		flags := map[string]string{}
		if tc.command == "train" {
			for k, v := range train {
				flags[k] = v
			}
		}
		for k, v := range tc.flags {
			flags[k] = v
		}
		status, ans := post(t, hs, "/api/"+tc.command, map[string]any{"flags": flags})
		if status != http.StatusBadRequest || ans.Flag != tc.flag {
			t.Errorf("%s %v: status %d, %q beside --%s; want 400 beside --%s", tc.command, tc.flags, status, ans.Error, ans.Flag, tc.flag)
		}
	}
	// Keywords of those flags are values, not files.
	flags := map[string]string{"objective": "quadratic", "method": "rpd", "delays": "exact", "stages": "2", "total-microbatches": "8", "step-size": "0.01"}
	if status, ans := post(t, hs, "/api/train", map[string]any{"flags": flags}); status != http.StatusOK {
		t.Errorf("train --delays exact: status %d, %s", status, ans.Error)
	}
}

// Every flag of the served commands that takes a string is either marked
// as naming a file (markFiles) or listed here as naming none: a new flag
// must be classified before the page can set it to a path.
func TestServedFlagsClassified(t *testing.T) {
	namesNoFile := map[string]bool{
		"kind": true, "model": true, "gpu": true, "link": true, "cost-model": true, "policy": true, "hint": true, "patience": true,
		"cap": true, "straggler": true, "partition": true, "format": true, "max-memory": true, "objective": true, "method": true,
		"optimizer": true, "muon-scale": true, "lr-schedule": true, "gpu-memory": true, "node-link": true, "recompute": true,
	}
	for _, command := range []string{"simulate", "compare", "tune", "delays", "schedule", "check", "train", "presets", "kinds"} {
		fs, err := flagSetOf(command)
		if err != nil {
			t.Fatal(err)
		}
		cmd, ok := request.CommandNamed(command)
		if !ok {
			cmd = train.Command()
		}
		uses, err := cmd.Flags()
		if err != nil {
			t.Fatal(err)
		}
		fs.VisitAll(func(fl *flag.Flag) {
			if _, ok := fl.Value.(request.FileFlag); ok {
				if u := uses[fl.Name]; !u.File && !u.Refused {
					t.Errorf("%s --%s names a file but the page may set it: %+v", command, fl.Name, u)
				}
				return
			}
			if g, ok := fl.Value.(flag.Getter); ok {
				switch g.Get().(type) {
				case bool, int, int64, uint, uint64, float64, time.Duration:
					return
				}
			}
			if !namesNoFile[fl.Name] {
				t.Errorf("%s --%s takes a string that is neither marked as a file (markFiles) nor listed as naming none", command, fl.Name)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for a server's goroutine and a test's.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// --addr off loopback (":PORT" binds every interface) says so on stderr;
// a loopback address does not. serve stops when its context ends.
func TestServeWarnsOffLoopback(t *testing.T) {
	for addr, warns := range map[string]bool{"127.0.0.1:0": false, ":0": true, "0.0.0.0:0": true} {
		ctx, cancel := context.WithCancel(context.Background())
		var stdout, stderr syncBuffer
		done := make(chan int)
		go func() { done <- runContext(ctx, []string{"serve", "--addr", addr}, &stdout, &stderr) }()
		waitFor(t, "serve to listen", func() bool { return strings.Contains(stdout.String(), "the explorer is on") })
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("--addr %s: exit %d: %s", addr, code, stderr.String())
		}
		if got := strings.Contains(stderr.String(), "warning: --addr "+addr+" is not a loopback address"); got != warns {
			t.Errorf("--addr %s: warned %v, want %v; stderr %q", addr, got, warns, stderr.String())
		}
	}
}

// SIGTERM stops serve with the uploads of the requests running removed:
// nothing of the page's files stays in the temporary folder.
func TestServeRemovesUploadsOnSIGTERM(t *testing.T) {
	bin := buildPipelab(t)
	tmp := t.TempDir()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed no address: %v; %s", err, stderr.String())
	}
	_, url, _ := strings.Cut(line, "on ")
	url, _, _ = strings.Cut(url, " ")
	// A long simulate of an uploaded schedule: 10⁵ iterations with jitter
	// of 1F1B on 8 ranks with 64 microbatches, minutes of work.
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 8, Microbatches: 64})
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	if err := pipeline.WriteCSV(&csv, tab); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"flags": map[string]string{"iterations": "100000", "jitter": "0.1"},
		"files": map[string]any{"schedule": map[string]string{"name": "mine.csv", "text": csv.String()}}})
	go func() {
		res, err := http.Post(url+"api/simulate", "application/json", bytes.NewReader(body))
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	}()
	uploaded := func() []string {
		m, _ := filepath.Glob(filepath.Join(tmp, "pipelab-serve-*", "schedule", "mine.csv"))
		return m
	}
	running := func() bool {
		res, err := http.Get(url + "api/queue")
		if err != nil {
			return false
		}
		defer res.Body.Close()
		var st explorer.QueueStatus
		return json.NewDecoder(res.Body).Decode(&st) == nil && st.Running == 1
	}
	waitFor(t, "the upload, its command running", func() bool { return len(uploaded()) == 1 && running() })
	if code, _ := terminate(t, cmd, &stderr, syscall.SIGTERM); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d after SIGTERM, want %d", code, 128+int(syscall.SIGTERM))
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "pipelab-serve-*")); len(left) > 0 {
		t.Errorf("left after SIGTERM: %v", left)
	}
}

// flagSetOf returns command's flag set, as its --help sees it.
func flagSetOf(command string) (*flag.FlagSet, error) {
	c, ok := commands[command]
	if !ok {
		return nil, fmt.Errorf("unknown command %q", command)
	}
	h, ok := request.IsHelp(c.run(context.Background(), []string{"--help"}, io.Discard, io.Discard))
	if !ok {
		return nil, fmt.Errorf("pipelab %s --help gave no flag set", command)
	}
	return h.FS, nil
}
