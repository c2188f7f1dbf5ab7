package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneKindParser: --kind takes family[:chunks] in every command
// (issue 25: simulate refused interleaved-zb:2 while compare and tune
// took it). simulate --kind interleaved-zb:2 is the same run as --kind
// interleaved-zb --chunks 2; schedule and delays take the form too, and
// chunks given both ways must agree.
func TestOneKindParser(t *testing.T) {
	base := []string{"--ranks", "4", "--microbatches", "8", "--format", "json"}
	code, colon, errs := runCLI(append([]string{"simulate", "--kind", "interleaved-zb:2"}, base...)...)
	if code != 0 {
		t.Fatalf("simulate --kind interleaved-zb:2: exit %d: %s", code, errs)
	}
	_, flag, _ := runCLI(append([]string{"simulate", "--kind", "interleaved-zb", "--chunks", "2"}, base...)...)
	if colon != flag {
		t.Errorf("--kind interleaved-zb:2 and --chunks 2 differ:\n%s\n%s", colon, flag)
	}
	for _, args := range [][]string{
		{"schedule", "--kind", "interleaved-1f1b:2", "--ranks", "2", "--microbatches", "4"},
		{"delays", "--kind", "interleaved-1f1b:2", "--ranks", "2", "--microbatches", "4"},
		{"compare", "--kind", "interleaved-zb:2,1f1b", "--ranks", "4", "--microbatches", "8"},
	} {
		if code, _, errs := runCLI(args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
	code, _, errs = runCLI("simulate", "--kind", "interleaved-zb:2", "--chunks", "3", "--ranks", "4", "--microbatches", "8")
	if code != 2 || !strings.Contains(errs, "--kind interleaved-zb:2 and --chunks 3 disagree") {
		t.Errorf("disagreeing chunks: exit %d, %q", code, errs)
	}
}

// TestHardwareWarningOnStderr: a hardware file whose number is possible
// but implausible (a 50 MB/s GPU link, meant GB/s) runs with one warning
// line on stderr naming the file, line and key; one that is impossible
// (bandwidth: 50, 50 B/s, which priced the run at 5e6 s) is refused with
// the unit it most likely meant. The ranges are pipeline/cost's
// (docs/robustness.md).
func TestHardwareWarningOnStderr(t *testing.T) {
	dir := t.TempDir()
	file := func(bandwidth string) string {
		p := filepath.Join(dir, "hw-"+bandwidth+".yaml")
		body := "gpu: {name: g, peak_flops: 312e12, memory_bytes: 80e9}\nlink: {name: l, latency: 3e-6, bandwidth: " + bandwidth + "}\n"
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	args := []string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "4", "--model", "gpt-1.3b", "--hardware"}
	slow := file("50e6")
	code, out, errs := runCLI(append(args, slow)...)
	want := "pipelab simulate: warning: --hardware: " + slow + ":2: link.bandwidth: 50 MB/s is below 100 MB/s"
	if code != 0 || out == "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, want) {
		t.Errorf("50e6 B/s: exit %d, stderr %q; want exit 0, output and one line starting %q", code, errs, want)
	}
	bad := file("50")
	code, _, errs = runCLI(append(args, bad)...)
	if code != 2 || !strings.Contains(errs, "50 B/s is below 1 MB/s") || !strings.Contains(errs, "50 GB/s is 50e9") {
		t.Errorf("50 B/s: exit %d, stderr %q; want exit 2 naming the likely unit", code, errs)
	}
}
