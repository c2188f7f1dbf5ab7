package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/request"
)

// hardwareEntry cuts the entry of preset name out of "presets --format
// yaml" and puts it under key, as a hardware file takes it.
func hardwareEntry(t *testing.T, printed, key, name string) string {
	t.Helper()
	lines := strings.Split(printed, "\n")
	for i, l := range lines {
		if l != "  - name: "+name {
			continue
		}
		out := []string{key + ":", "  name: " + name}
		for _, m := range lines[i+1:] {
			if !strings.HasPrefix(m, "    ") {
				break
			}
			out = append(out, m[2:])
		}
		return strings.Join(out, "\n") + "\n"
	}
	t.Fatalf("presets --format yaml has no %q", name)
	return ""
}

// A hardware file copied from "presets --format yaml" times a schedule as
// the presets it copies do.
func TestHardwareFileFromPresets(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"presets", "--format", "yaml"}, &out, &errb); code != 0 {
		t.Fatalf("presets --format yaml: exit %d, %s", code, errb.String())
	}
	hw := writeFile(t, "a100.yaml", hardwareEntry(t, out.String(), "gpu", "a100")+hardwareEntry(t, out.String(), "link", "nvlink"))
	args := []string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--model", "gpt-1.3b", "--format", "json"}
	var preset, file map[string]any
	runJSON(t, append(slicesClone(args), "--gpu", "a100", "--link", "nvlink"), &preset)
	runJSON(t, append(slicesClone(args), "--hardware", hw), &file)
	if !reflect.DeepEqual(preset, file) {
		t.Errorf("--hardware report differs from the presets':\n%v\n%v", file, preset)
	}
}

// Two nodes of two ranks joined by a slow link: only the transfers between
// ranks 1 and 2 slow down, so 1F1B's iteration grows by the extra transfer
// time along its critical path and no more than 2M transfers' worth.
func TestHardwareFileNodes(t *testing.T) {
	gpu := "gpu: {name: g, peak_flops: 312e12, efficiency: 0.5, memory_bytes: 80e9}\n"
	fast := "link: {name: fast, latency: 0, bandwidth: 1e14}\n" // the fastest a link may be
	one := writeFile(t, "one.yaml", gpu+fast)
	two := writeFile(t, "two.yaml", gpu+fast+"ranks_per_node: 2\ninter_node_link: {name: slow, latency: 1e-3, bandwidth: 1e14}\n")
	args := []string{"simulate", "--kind", "1f1b", "--ranks", "4", "--microbatches", "4", "--model", "gpt-1.3b", "--format", "json"}
	var a, b request.SimulateReport
	runJSON(t, append(slicesClone(args), "--hardware", one), &a)
	runJSON(t, append(slicesClone(args), "--hardware", two), &b)
	// 1 ms per transfer across the node boundary: the warm-up's forward
	// and the cool-down's backward cross it at least once each on the
	// critical path; at most all 2M = 8 crossings add up.
	if d := b.Makespan - a.Makespan; d < 2e-3-1e-9 || d > 8e-3+1e-9 {
		t.Errorf("makespan %g on two nodes, %g on one: +%g s, want between 2 and 8 ms", b.Makespan, a.Makespan, d)
	}
	if !strings.Contains(b.Cost, "within nodes of 2 ranks, slow between them") {
		t.Errorf("cost %q does not name the node layout", b.Cost)
	}
}

// Bad --hardware input: exit 2, one line naming the flag, file, line and key.
func TestHardwareFileErrors(t *testing.T) {
	bad := writeFile(t, "hw.yaml", "gpu: {name: g, peak_flops: 1e14}\nlink: {name: l, latency: 1e-6, bandwidth: 1e10}\n")
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "2", "--model", "llama-7b", "--hardware", bad}, []string{"--hardware", "hw.yaml:1:", "gpu.memory_bytes: missing"}},
		{[]string{"tune", "--ranks", "2", "--model", "llama-7b", "--hardware", bad}, []string{"--hardware", "gpu.memory_bytes"}},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "2", "--model", "llama-7b", "--hardware", bad, "--gpu", "a100"}, []string{"drop --gpu and --link"}},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "2", "--hardware", bad}, []string{"need --model"}},
	}
	for _, tt := range tests {
		refusedAsBadInput(t, tt.args, tt.want...)
	}
}

// refusedAsBadInput runs args and checks that the command refuses them as
// bad input: exit 2, nothing on stdout, and a first line of stderr that
// holds every string of want.
func refusedAsBadInput(t *testing.T, args []string, want ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	first, _, _ := strings.Cut(errb.String(), "\n")
	if code != 2 {
		t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errb.String())
	}
	for _, w := range want {
		if !strings.Contains(first, w) {
			t.Errorf("%v: first line %q lacks %q", args, first, w)
		}
	}
	if out.Len() != 0 {
		t.Errorf("%v: wrote %q to stdout", args, out.String())
	}
}
