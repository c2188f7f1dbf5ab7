package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/objectives/charlm"
	"github.com/pipelab/pipelab/optim"
)

// lmSmall is a fast LM run on the markov corpus: S = 3 and batches of two
// sequences.
var lmSmall = []string{"--objective", "charlm", "--stages", "3", "--corpus", "markov", "--n", "3000", "--batch-size", "2", "--method", "pipedream"}

// The character LM trains under PipeDream (N·S block updates), its loss
// stays finite, and the report carries its validation loss.
func TestTrainLM(t *testing.T) {
	rep := trainJSON(t, append(lmSmall, "--total-microbatches", "6")...)
	if rep["block_updates"] != 18.0 || rep["outcome"] != "ok" {
		t.Errorf("block updates %v, outcome %v", rep["block_updates"], rep["outcome"])
	}
	if v, ok := rep["validation_loss"].(float64); !ok || !(v > 0) {
		t.Errorf("validation_loss %v, want a positive number", rep["validation_loss"])
	}
	if rep := trainJSON(t, "--objective", "quadratic", "--n", "20", "--d", "4", "--batch-size", "5", "--stages", "2",
		"--step-size", "0.1", "--method", "pipedream", "--total-microbatches", "4"); rep["validation_loss"] != nil {
		t.Errorf("the quadratic has no held-out set, but validation_loss is %v", rep["validation_loss"])
	}
	var out, errb bytes.Buffer
	if code := run(append([]string{"train"}, append(lmSmall, "--total-microbatches", "3", "--blocks-per-stage", "2")...), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "\nvalidation loss: ") {
		t.Errorf("text output has no validation loss line:\n%s", out.String())
	}
}

// Bad LM input is a one-line error naming the flag or the file, exit 2,
// before anything runs.
func TestTrainLMErrors(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	lm := []string{"--objective", "charlm", "--stages", "3", "--method", "pipedream", "--total-microbatches", "2"}
	with := func(args ...string) []string { return append(append([]string{}, lm...), args...) }
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"two stages", []string{"--objective", "charlm", "--stages", "2", "--method", "pipedream"}, "--stages must be at least 3 for charlm"},
		{"zero blocks", with("--blocks-per-stage", "0"), "--blocks-per-stage must be at least 1"},
		{"n with the shipped text", with("--n", "5000"), "--n sizes the markov corpus only"},
		{"corpus on logistic", []string{"--objective", "logistic", "--stages", "2", "--method", "pipedream", "--total-microbatches", "2", "--step-size", "0.1", "--corpus", "markov"}, "apply to charlm only"},
		{"empty file", with("--corpus", file("empty.txt", "")), "empty.txt: empty"},
		{"not UTF-8", with("--corpus", file("latin1.txt", "na\xefve text")), "latin1.txt: invalid UTF-8 at byte offset 2"},
		// The run's shape on a user's file (experiments.LMConfig: batch 16 ×
		// sequence 16): at least 10·257 - 9 = 2561 characters. The check
		// once used the markov shape's sequence 32 (5121) and refused
		// files the run would take.
		{"too short", with("--corpus", file("short.txt", strings.Repeat("x", 2560))), "--corpus " + filepath.Join(dir, "short.txt") + ": invalid corpus: 2560 characters, need at least 2561"},
		{"too many blocks", with("--blocks-per-stage", "100000"), "invalid config: the workspaces of 100000 GPT blocks"},
		{"missing file", with("--corpus", filepath.Join(dir, "nothing.txt")), "nothing.txt: no such file"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(append([]string{"train"}, c.args...), &out, &errb)
		first, _, _ := strings.Cut(errb.String(), "\n")
		if code != 2 || !strings.Contains(first, c.want) || out.Len() > 0 {
			t.Errorf("%s: exit %d, first line %q, stdout %d bytes; want exit 2, one line mentioning %q, no output", c.name, code, first, out.Len(), c.want)
		}
	}
}

// TestTrainLMShortestCorpus: the shortest file the run's shape takes
// (2561 characters at batch 16 × sequence 16, TestTrainLMErrors' closed
// form) trains.
func TestTrainLMShortestCorpus(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shortest.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat("ab", 1280)+"c"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	args := []string{"train", "--objective", "charlm", "--stages", "3", "--method", "pipedream", "--total-microbatches", "2", "--corpus", path}
	if code := run(args, &out, &errb); code != 0 {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}

// TestTrainLMDefaults: with no shape flags, the docs' charlm line (docs/charlm.md,
// "pipelab train on the shipped corpus") runs N = 8,000 microbatches with a record
// every 400 (400·S block updates) and, with Adam, ShakespeareLM's recipe: step
// 2^-7 with a cosine schedule after 20 updates of warm-up. The docs test only
// parses that line, as training it takes about 25 s of CPU.
func TestTrainLMDefaults(t *testing.T) {
	var errb bytes.Buffer
	_, r, err := parseTrain([]string{"--objective", "charlm", "--method", "sync", "--stages", "4", "--optimizer", "adam"}, &errb)
	if err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	o := r.Optimizer
	if r.TotalMicrobatches != 8000 || r.LogEvery != 400*4 || r.Step != 0.0078125 ||
		o.Algorithm != optim.Adam || o.Schedule != optim.Cosine || o.Warmup != 20 || r.Corpus != charlm.CorpusTinyShakespeare {
		t.Errorf("N %d, log every %d, step %g, optimizer %+v, corpus %q; want 8000, 1600, 2^-7, adam with cosine after 20, tinyshakespeare",
			r.TotalMicrobatches, r.LogEvery, r.Step, o, r.Corpus)
	}
	// With the SGD family: §1.7's step, and no schedule.
	if _, r, err = parseTrain([]string{"--objective", "charlm", "--method", "pipedream", "--stages", "4"}, &errb); err != nil {
		t.Fatal(err)
	}
	if r.TotalMicrobatches != 8000 || r.Step != 0.0625 || r.Optimizer.Schedule == optim.Cosine {
		t.Errorf("SGD: N %d, step %g, schedule %q; want 8000, 0.0625, constant", r.TotalMicrobatches, r.Step, r.Optimizer.Schedule)
	}
}
