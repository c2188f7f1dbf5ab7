package request

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

// --comms adds PyTorch's SEND/RECV: over P − 1 stage boundaries each of
// the M microbatches sends and receives its activation forward and its
// gradient backward, 4 actions a boundary (docs/reference.md §3, PyTorch's
// _add_send_recv); the grid of one stage per rank is drawn as the papers
// draw it, except once messages are added.
func TestScheduleCommsAndStyle(t *testing.T) {
	const p, m = 4, 8
	tab := generate(t, "1f1b", p, m)
	plain, err := Schedule(context.Background(), ScheduleRequest{Table: tab})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Style != pipeline.PaperStyle || plain.Table != tab {
		t.Errorf("plain grid: style %v, table changed %v; want the papers' style and the table as given", plain.Style, plain.Table != tab)
	}
	lowered, err := Schedule(context.Background(), ScheduleRequest{Table: tab, Comms: true})
	if err != nil {
		t.Fatal(err)
	}
	comm := 0
	for _, row := range lowered.Table.Rows {
		for _, a := range row {
			if a.Kind.IsComm() {
				comm++
			}
		}
	}
	if want := 4 * (p - 1) * m; comm != want {
		t.Errorf("--comms added %d SEND/RECV actions, want 4(P-1)M = %d", comm, want)
	}
	if lowered.Style != pipeline.TorchStyle {
		t.Errorf("lowered grid: style %v, want PyTorch's", lowered.Style)
	}
}

// The CSV is PyTorch's schedule file, one line a rank, and a
// schedule PyTorch's loader refuses (Chimera runs every microbatch on
// every stage) carries the refusal; 1F1B's does not.
func TestScheduleCSV(t *testing.T) {
	for _, tc := range []struct {
		kind    string
		refused bool
	}{{"1f1b", false}, {"chimera", true}} {
		rep, err := Schedule(context.Background(), ScheduleRequest{Table: generate(t, tc.kind, 4, 4), CSV: true})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := rep.Write(&b); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(b.String()), "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[0], "0F0,") {
			t.Errorf("%s: CSV of %d lines starting %q, want one a rank (4), rank 0 first running stage 0's F of microbatch 0", tc.kind, len(lines), lines[0])
		}
		if (rep.TorchRefusal != nil) != tc.refused {
			t.Errorf("%s: PyTorch's refusal %v, want refused %v", tc.kind, rep.TorchRefusal, tc.refused)
		}
	}
	if _, err := Schedule(context.Background(), ScheduleRequest{}); !errors.Is(err, ErrBadInput) {
		t.Errorf("no table: %v, want bad input", err)
	}
}
