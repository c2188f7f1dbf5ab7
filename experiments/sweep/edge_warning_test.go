package sweep

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestSweepWarnsOfAChoiceAtTheGridEdge: a sweep whose selected step is the
// largest of its grid, which it may not grow (no extend_grid), says so on
// its progress output (issue 39: it printed nothing, where reproduce
// warns). gridLoss's best power-of-two step lies above 2^-10, so the grid
// 2^-12..2^-10 chooses its upper edge; 2^-6..2^-2 brackets its best, 2^-4.
func TestSweepWarnsOfAChoiceAtTheGridEdge(t *testing.T) {
	for _, tc := range []struct {
		grid string
		want bool
	}{
		{"{pow2: [-12, -10]}", true},
		{"{pow2: [-6, -2]}", false},
	} {
		var progress bytes.Buffer
		rn := Runner{Dir: t.TempDir(), Jobs: 2, Execute: gridRun, Progress: &progress}
		if _, err := rn.Sweep(context.Background(), gridRuns(t, tc.grid, "0")); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(progress.String(), "at an edge of its grid"); got != tc.want {
			t.Errorf("grid %s: warned %v, want %v; progress:\n%s", tc.grid, got, tc.want, progress.String())
		}
	}
}
