package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// runCode runs a command line and returns its exit status and stderr.
func runCode(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// Bad numbers in a costs file are refused where they are read, naming the
// file, the line and the column, with exit status 2 (before: compare
// accepted NaN, exited 0 with errors in its rows; 1e308 ms printed a
// 300-digit makespan).
func TestCostsFileBadNumbers(t *testing.T) {
	head := "stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n"
	for cell, want := range map[string]string{
		"NaN":   `c.csv:2: fwd_ms: want a non-negative decimal number of milliseconds, got "NaN"`,
		"0x1p3": `got "0x1p3"`, "1_000": `got "1_000"`, "1e308": "c.csv:2: fwd_ms: 1e+305 s is over one day",
	} {
		path := writeFile(t, "c.csv", head+"0,"+cell+",1,1,0.1\n1,1,1,1,\n")
		for _, cmd := range [][]string{
			{"compare", "--ranks", "2", "--microbatches", "4"},
			{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "4"},
			{"tune", "--ranks", "2"},
		} {
			code, _, stderr := runCode(append(cmd, "--costs", path)...)
			first := strings.SplitN(stderr, "\n", 2)[0]
			if code != 2 || !strings.Contains(first, "--costs: ") || !strings.Contains(first, want) || strings.Contains(first, "cost: ") {
				t.Errorf("%s with %s: exit %d, %q; want 2 and %q", cmd[0], cell, code, first, want)
			}
		}
	}
}

// A hardware file's bandwidth of 50 (meant GB/s) is refused naming the
// key and the likely unit; an implausible one is warned about on stderr;
// a GPU without room for one microbatch is named as the file names it, not
// as --gpu's default.
func TestHardwareFilePlausibility(t *testing.T) {
	sim := []string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "4", "--model", "gpt-1.3b", "--hardware"}
	slow := writeFile(t, "slow.yaml", "gpu: {name: g, peak_flops: 312e12, memory_bytes: 80e9}\nlink: {name: l, latency: 3e-6, bandwidth: 50}\n")
	code, _, stderr := runCode(append(sim, slow)...)
	if code != 2 || !strings.Contains(stderr, "--hardware: "+slow+":2: link.bandwidth: 50 B/s is below 1 MB/s") || !strings.Contains(stderr, "50 GB/s is 50e9") {
		t.Errorf("bandwidth 50: exit %d, %q", code, stderr)
	}
	odd := writeFile(t, "odd.yaml", "gpu: {name: g, peak_flops: 312e12, memory_bytes: 80e9}\nlink: {name: l, latency: 3e-6, bandwidth: 5e7}\n")
	code, out, stderr := runCode(append(sim, odd)...)
	if code != 0 || !strings.Contains(stderr, "pipelab simulate: warning: --hardware: "+odd+":2: link.bandwidth: 50 MB/s is below 100 MB/s") || !strings.Contains(out, "makespan") {
		t.Errorf("bandwidth 5e7: exit %d, stderr %q", code, stderr)
	}
	tiny := writeFile(t, "tiny.yaml", "gpu: {name: tiny-gpu, peak_flops: 312e12, memory_bytes: 2e9}\nlink: {name: l, latency: 3e-6, bandwidth: 50e9}\n")
	code, _, stderr = runCode(append(sim, tiny)...)
	if code != 2 || !strings.Contains(stderr, "more than the tiny-gpu's 2.0 GB") || strings.Contains(stderr, "h100") {
		t.Errorf("a GPU of 2 GB: exit %d, %q, want the file's GPU named", code, stderr)
	}
}

// Every reader stops at its cap: /dev/zero given for any file is refused
// in one short line (before: a schedule CSV, --model-config or a spec grew
// without bound).
func TestReadersStopAtTheirCap(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	costs := writeFile(t, "c.csv", "stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n0,1,1,1,\n")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "/dev/zero"}, `/dev/zero:1: cell 1: a cell of more than 64 bytes, starting "\x00\x00`},
		{[]string{"simulate", "--schedule", "/dev/zero"}, "/dev/zero:1: cell 1: a cell of more than 64 bytes"},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "2", "--model-config", "/dev/zero"}, "--model-config: /dev/zero: model config goes on past the 16 MiB"},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "2", "--model", "gpt-1.3b", "--hardware", "/dev/zero"}, "--hardware: /dev/zero: hardware file goes on past the 1 MiB"},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "1", "--microbatches", "2", "--costs", "/dev/zero"}, "--costs: /dev/zero: costs file goes on past the 16 MiB"},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "1", "--microbatches", "2", "--costs", costs, "--max-memory", "1G"}, ""},
		{[]string{"sweep", "/dev/zero", "--out", t.TempDir()}, "/dev/zero: spec goes on past the 16 MiB"},
	} {
		code, _, stderr := runCode(tt.args...)
		if tt.want == "" {
			if code != 0 {
				t.Errorf("%v: exit %d, %q", tt.args, code, stderr)
			}
			continue
		}
		first := strings.SplitN(stderr, "\n", 2)[0]
		if code != 2 || !strings.Contains(first, tt.want) || len(first) > 400 {
			t.Errorf("%v: exit %d, %.400q; want 2 and %q", tt.args, code, first, tt.want)
		}
	}
}

// A megabyte of junk in a schedule cell gives a short line; a large
// schedule file is refused under --max-memory before it is read.
func TestScheduleFileShortErrors(t *testing.T) {
	junk := writeFile(t, "junk.csv", "0F0,"+strings.Repeat("x", 1<<20)+"\n")
	code, _, stderr := runCode("check", junk)
	if code != 2 || len(stderr) > 300 || !strings.Contains(stderr, `junk.csv:1: cell 2: a cell of more than 64 bytes, starting "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"...`) {
		t.Errorf("a 1 MB cell: exit %d, %d bytes: %.300q", code, len(stderr), stderr)
	}
	nul := writeFile(t, "nul.csv", "0F0,0B0\n1F\x000\n")
	code, _, stderr = runCode("check", nul)
	if code != 2 || !strings.Contains(stderr, `"1F\x000"`) {
		t.Errorf("a NUL in a cell: exit %d, %q", code, stderr)
	}
	lines := writeFile(t, "lines.csv", strings.Repeat("\n", 1<<20))
	code, _, stderr = runCode("check", lines, "--max-memory", "10M")
	if code != 2 || !strings.Contains(stderr, "the schedule file "+lines+" (1 MiB) needs about 252 MB; the limit is 10 MB") {
		t.Errorf("a schedule file over the memory limit: exit %d, %q", code, stderr)
	}
}

// tune on measured costs runs zb-auto (before: "unknown schedule family
// zb-auto" for every microbatch count).
func TestTuneMeasuredZBAuto(t *testing.T) {
	costs := writeFile(t, "c.csv", "stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n0,1,1,1,0.1\n1,1,1,1,0.1\n2,1,1,1,0.1\n3,1,1,1,\n")
	code, out, stderr := runCode("tune", "--costs", costs, "--ranks", "4", "--kind", "zb-auto,1f1b")
	if code != 0 || strings.Contains(out+stderr, "unknown schedule family") || strings.Contains(out, "not run: zb-auto") {
		t.Errorf("exit %d, out %q, stderr %q", code, out, stderr)
	}
}

// TestScheduleFileOutOfOrderIsNamed: simulate and delays --schedule name a
// file that breaks a stage's order by its line and cell, counted from 1 as
// check counts them, exit status 2 (issue 39: exit 1, "rank 1 cell 1", no
// file).
func TestScheduleFileOutOfOrderIsNamed(t *testing.T) {
	bad := writeFile(t, "bad.csv", "0F0,,,,0B0\n,1B0,1F0\n")
	for _, cmd := range []string{"simulate", "delays"} {
		code, _, stderr := runCode(cmd, "--schedule", bad)
		if code != 2 || !strings.Contains(stderr, bad+":2: cell 2: 1B0: ") {
			t.Errorf("%s --schedule: exit %d, %q; want 2 and %s:2: cell 2", cmd, code, stderr, bad)
		}
	}
}
