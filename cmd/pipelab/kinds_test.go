package main

import (
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/request"
)

// TestKindsListsEveryFamily checks one line per registered family, name
// first, then its summary, and last zb-auto's.
func TestKindsListsEveryFamily(t *testing.T) {
	code, out, errs := runCLI("kinds")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	families := append(pipeline.Families(), pipeline.Family{Name: "zb-auto", Summary: request.ZBAutoSummary})
	if len(lines) != len(families) {
		t.Fatalf("%d lines for %d families:\n%s", len(lines), len(families), out)
	}
	for i, f := range families {
		fields := strings.Fields(lines[i])
		if fields[0] != f.Name || !strings.HasSuffix(lines[i], f.Summary) {
			t.Errorf("line %d %q, want %s and its summary", i, lines[i], f.Name)
		}
	}
	if code, _, _ := runCLI("kinds", "extra"); code == 0 {
		t.Error("kinds extra: exit 0, want non-zero")
	}
}
