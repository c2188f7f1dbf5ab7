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
	shape := []string{"--kind", "1f1b", "--stages", "4", "--microbatches", "8"}
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
	code, stderr := runCommand(t, "simulate", "--kind", "1f1b", "--stages", "4", "--microbatches", "8", "--jitter", "1", "--comm-jitter", "1")
	if code != 0 {
		t.Fatalf("--jitter 1: exit %d: %s", code, stderr)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
