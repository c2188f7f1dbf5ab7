package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zbAutoCosts are the Zero Bubble paper's 1.5B per-stage times (Appendix
// D, docs/reference.md §5), ms.
var zbAutoCosts = []string{"--fwd", "18.522", "--bwd", "18.086", "--wgrad", "9.337", "--comm", "0.601"}

func simulateMakespan(t *testing.T, args ...string) float64 {
	t.Helper()
	code, out, errs := runCLI(append([]string{"simulate", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("simulate %v: exit %d: %s", args, code, errs)
	}
	var rep simulateReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	return rep.Makespan
}

// zb-auto from explicit costs, written as PyTorch CSV with SEND/RECV, is
// accepted by "pipelab check", and "simulate --schedule" times the file as
// "simulate --kind zb-auto" times the generated table; with the limit 2P
// it is not slower than ZB-H2 under the same costs.
func TestZBAutoCommandLine(t *testing.T) {
	shape := []string{"--stages", "8", "--microbatches", "24"}
	args := append(append([]string{"schedule", "--kind", "zb-auto", "--max-activations", "16", "--format", "csv", "--comms"}, shape...), zbAutoCosts...)
	code, out, errs := runCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	path := filepath.Join(t.TempDir(), "zb-auto.csv")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI("check", path); code != 0 {
		t.Fatalf("check: exit %d: %s", code, errs)
	}
	generated := simulateMakespan(t, append(append([]string{"--kind", "zb-auto", "--max-activations", "16"}, shape...), zbAutoCosts...)...)
	// The file carries its SEND/RECV, timed as written.
	read := simulateMakespan(t, append([]string{"--schedule", path}, zbAutoCosts...)...)
	h2 := simulateMakespan(t, append(append([]string{"--kind", "zb-h2"}, shape...), zbAutoCosts...)...)
	if read != generated {
		t.Errorf("the CSV takes %g, the generated table %g", read, generated)
	}
	if generated > h2 {
		t.Errorf("zb-auto %g slower than zb-h2 %g", generated, h2)
	}
}

func TestZBAutoFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"schedule", "--kind", "zb-h1", "--stages", "4", "--microbatches", "8", "--max-activations", "4"}, "--max-activations applies to --kind zb-auto only"},
		{[]string{"schedule", "--kind", "1f1b", "--stages", "4", "--microbatches", "8", "--fwd", "1"}, "--fwd: cost flags apply to --kind zb-auto only"},
		{[]string{"schedule", "--kind", "zb-auto", "--stages", "4", "--microbatches", "8", "--max-activations", "-1"}, "--max-activations must be at least 1"},
		{[]string{"simulate", "--kind", "zb-auto", "--stages", "4", "--microbatches", "8", "--chunks", "2"}, "--chunks must be 1"},
		{[]string{"compare", "--stages", "4", "--microbatches", "8", "--max-activations", "8"}, "--max-activations applies to zb-auto only"},
		{[]string{"simulate", "--kind", "1f1b", "--stages", "2", "--microbatches", "3", "--policy", "ready", "--cap", "+-1"}, "want N"},
		{[]string{"simulate", "--kind", "1f1b", "--stages", "2", "--microbatches", "3", "--policy", "ready", "--cap", "x"}, "want N"},
	} {
		code, _, errs := runCLI(c.args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want a failure saying %q", c.args, code, firstLine(errs), c.want)
		}
	}
}
