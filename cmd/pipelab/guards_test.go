package main

import (
	"bytes"
	"strings"
	"testing"
)

// runCommand runs the command line args in-process and returns its exit
// status and what it printed on stderr.
func runCommand(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stderr.String()
}

// TestBadNumbersAreRefusedAtTheFlag covers the cases: NaN and
// infinite values of any float flag, and jitter beyond what the log-normal
// variability model means (sim.MaxSigma), each refused as bad input (exit
// status 2) with the flag and its range named.
func TestBadNumbersAreRefusedAtTheFlag(t *testing.T) {
	shape := []string{"--kind", "1f1b", "--ranks", "4", "--microbatches", "8"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"simulate", "--fwd", "nan", "--bwd", "2"}, shape...), "--fwd must be a finite number, got NaN"},
		{append([]string{"simulate", "--fwd", "1", "--bwd", "+Inf"}, shape...), "--bwd must be a finite number, got +Inf"},
		{[]string{"tune", "--efficiency", "nan"}, "--efficiency must be a finite number, got NaN"},
		{[]string{"train", "--step-size", "-inf"}, "--step-size must be a finite number, got -Inf"},
		{append([]string{"simulate", "--jitter", "1e308"}, shape...), "--jitter must be in [0, 1], got 1e+308"},
		{append([]string{"simulate", "--jitter", "50"}, shape...), "--jitter must be in [0, 1], got 50"},
		{append([]string{"simulate", "--comm-jitter", "-0.5"}, shape...), "--comm-jitter must be in [0, 1], got -0.5"},
	} {
		code, stderr := runCommand(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("pipelab %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, firstLine(stderr), tc.want)
		}
	}
}

// TestJitterAtTheBoundRuns checks that the bound itself is accepted.
func TestJitterAtTheBoundRuns(t *testing.T) {
	code, stderr := runCommand(t, "simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--jitter", "1", "--comm-jitter", "1")
	if code != 0 {
		t.Fatalf("--jitter 1: exit %d: %s", code, stderr)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestSizesAreRefusedBeforeAllocating runs the cases, each of
// which ran out of memory before: every one is refused as bad input with
// the one-line estimate. The estimates come from pipeline.CellBound times
// the command's measured bytes per cell (size.go), so the test checks the
// wording and that nothing was attempted (a refusal after allocating would
// not return at all on this machine).
func TestSizesAreRefusedBeforeAllocating(t *testing.T) {
	for _, tc := range []struct {
		args []string
		what string
	}{
		{[]string{"schedule", "--kind", "1f1b", "--ranks", "100000", "--microbatches", "100000"}, "a 100000 × 100000 1f1b table needs about"},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "100000", "--microbatches", "100000"}, "a 100000 × 100000 1f1b table needs about"},
		{[]string{"compare", "--ranks", "100000", "--microbatches", "100000"}, "a 100000 × 100000 gpipe table needs about"},
		{[]string{"delays", "--ranks", "100000"}, "a 100000 × 1000000 pipedream table needs about"},
		{[]string{"train", "--objective", "quadratic", "--method", "pipedream", "--stages", "4", "--total-microbatches", "1000000000", "--step-size", "0.01"},
			"a 4 × 1000000000 pipedream table needs about"},
		{[]string{"train", "--objective", "quadratic", "--method", "pipedream", "--stages", "10000", "--d", "20000", "--total-microbatches", "100", "--step-size", "0.01"},
			"a 10000 × 100 pipedream table needs about"},
		{[]string{"train", "--objective", "quadratic", "--method", "pipedream", "--stages", "4", "--d", "2000000", "--total-microbatches", "100", "--step-size", "0.01"},
			"a 2000 × 2000000 data set needs about 80 GB"},
		{[]string{"tune", "--model", "gpt-1.3b", "--ranks", "8", "--microbatches", "10000000"}, "a 8 × 10000000 gpipe table needs about"},
		// 4 rows × (2·10000 + 3·4) cells (CellBound's 1F1B) × 500 B.
		{[]string{"schedule", "--kind", "1f1b", "--ranks", "4", "--microbatches", "10000", "--max-memory", "1M"},
			"a 4 × 10000 1f1b table needs about 40 MB; the limit is 1.0 MB, set by --max-memory or PIPELAB_MAX_MEMORY"},
		// Issue 39: zb-auto passed every limit (schedule ran past 3 GB).
		{[]string{"schedule", "--kind", "zb-auto", "--ranks", "100", "--microbatches", "100000", "--max-memory", "1M"}, "a 100 × 100000 zb-auto table needs about"},
		{[]string{"compare", "--kind", "zb-auto", "--ranks", "100", "--microbatches", "100000", "--max-memory", "1M"}, "a 100 × 100000 zb-auto table needs about"},
		{[]string{"tune", "--model", "gpt-1.3b", "--kind", "zb-auto", "--ranks", "100", "--microbatches", "100000", "--max-memory", "1M"}, "a 100 × 100000 zb-auto table needs about"},
	} {
		code, stderr := runCommand(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.what) || !strings.Contains(stderr, "set by --max-memory or PIPELAB_MAX_MEMORY") {
			t.Errorf("pipelab %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, firstLine(stderr), tc.what)
		}
	}
}

// TestMaxMemoryFromTheEnvironment: PIPELAB_MAX_MEMORY sets the limit when
// --max-memory is not given, and a bad value is named.
func TestMaxMemoryFromTheEnvironment(t *testing.T) {
	t.Setenv("PIPELAB_MAX_MEMORY", "1MB")
	code, stderr := runCommand(t, "schedule", "--kind", "1f1b", "--ranks", "4", "--microbatches", "10000")
	if code != 2 || !strings.Contains(stderr, "the limit is 1.0 MB") {
		t.Errorf("exit %d, %q; want the 1 MB limit of the environment", code, firstLine(stderr))
	}
	if code, _ := runCommand(t, "schedule", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--max-memory", "1G"); code != 0 {
		t.Errorf("--max-memory 1G over a 1MB environment: exit %d, want the flag to win", code)
	}
	t.Setenv("PIPELAB_MAX_MEMORY", "plenty")
	if code, stderr := runCommand(t, "schedule", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8"); code == 0 || !strings.Contains(stderr, `PIPELAB_MAX_MEMORY="plenty"`) {
		t.Errorf("a bad PIPELAB_MAX_MEMORY: exit %d, %q", code, firstLine(stderr))
	}
}

// TestMicrobatchBeyondTheGPUIsRefused: the GPU model's memory of one
// microbatch at b = 100000 is hundreds of TB on an 80 GB H100.
func TestMicrobatchBeyondTheGPUIsRefused(t *testing.T) {
	code, stderr := runCommand(t, "simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--model", "gpt-1.3b", "--microbatch-size", "100000")
	if want := "one microbatch's activations on stage 0 take"; code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "more than the h100's 80 GB") {
		t.Errorf("exit %d, %q; want exit 2 and %q", code, firstLine(stderr), want)
	}
}
