package main

import (
	"bytes"
	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/request/train"
	"io"
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
		// The run's shape on a user's file (train's default, batch 16 ×
		// sequence 32): at least 10·513 - 9 = 5121 characters. The check
		// must use the shape the run builds: it once used another and
		// refused files the run would take.
		{"too short", with("--corpus", file("short.txt", strings.Repeat("x", 5120))), "--corpus " + filepath.Join(dir, "short.txt") + ": invalid corpus: 5120 characters, need at least 5121"},
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
// (5121 characters at batch 16 × sequence 32, TestTrainLMErrors' closed
// form) trains.
func TestTrainLMShortestCorpus(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shortest.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat("ab", 2560)+"c"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	args := []string{"train", "--objective", "charlm", "--stages", "3", "--method", "pipedream", "--total-microbatches", "2", "--corpus", path}
	if code := run(args, &out, &errb); code != 0 {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}

// TestTrainLMDefaults: with no shape flags, the docs' charlm line (docs/charlm.md,
// "pipelab train on the shipped corpus") trains E 64, T 32 on the shipped text
// for N = 5,600 microbatches with a record every 2,800 (2,800·S block
// updates) and, with Adam, train's recipe: step 0.0035 with a cosine
// schedule after 20 updates of warm-up, β2 0.99, sync updating after every
// microbatch. The docs test only parses that line, as training it takes about
// two minutes of CPU. The markov corpus keeps the paper's shape (E and T 0:
// DefaultConfig's) and ShakespeareLM's step 2^-7 and β2 0.999.
func TestTrainLMDefaults(t *testing.T) {
	var errb bytes.Buffer
	_, r, err := parseTrain([]string{"--objective", "charlm", "--method", "sync", "--stages", "4", "--optimizer", "adam"}, &errb)
	if err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	o := r.Optimizer
	if r.TotalMicrobatches != 5600 || r.LogEvery != 2800*4 || r.Step != 0.0035 || r.Embed != 64 || r.SeqLen != 32 || r.Microbatches != 1 ||
		o.Algorithm != optim.Adam || o.Beta2 != 0.99 || o.Schedule != optim.Cosine || o.Warmup != 20 || r.Corpus != charlm.CorpusTinyShakespeare {
		t.Errorf("N %d, log every %d, step %g, E %d, T %d, sync microbatches %d, optimizer %+v, corpus %q; want 5600, 11200, 0.0035, 64, 32, 1, adam β2 0.99 with cosine after 20, tinyshakespeare",
			r.TotalMicrobatches, r.LogEvery, r.Step, r.Embed, r.SeqLen, r.Microbatches, o, r.Corpus)
	}
	// With the SGD family: §1.7's step, and no schedule.
	if _, r, err = parseTrain([]string{"--objective", "charlm", "--method", "pipedream", "--stages", "4"}, &errb); err != nil {
		t.Fatal(err)
	}
	if r.TotalMicrobatches != 5600 || r.Step != 0.0625 || r.Optimizer.Schedule == optim.Cosine {
		t.Errorf("SGD: N %d, step %g, schedule %q; want 5600, 0.0625, constant", r.TotalMicrobatches, r.Step, r.Optimizer.Schedule)
	}
	// The markov corpus: the paper's shape and ShakespeareLM's Adam step.
	if _, r, err = parseTrain([]string{"--objective", "charlm", "--method", "sync", "--stages", "4", "--optimizer", "adam", "--corpus", "markov"}, &errb); err != nil {
		t.Fatal(err)
	}
	if r.Embed != 0 || r.SeqLen != 0 || r.Step != 0.0078125 || r.Optimizer.Beta2 != 0.999 || r.Microbatches != 4 {
		t.Errorf("markov: E %d, T %d, step %g, β2 %g, sync microbatches %d; want 0, 0, 2^-7, 0.999, 4", r.Embed, r.SeqLen, r.Step, r.Optimizer.Beta2, r.Microbatches)
	}
}

// parseTrain is train.Decode's run.
func parseTrain(args []string, stderr io.Writer) (train.Request, experiments.Run, error) {
	req, _, err := train.Decode(args, stderr)
	return req, req.Run, err
}
