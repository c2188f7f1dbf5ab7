package pipeline

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var updateRender = flag.Bool("update-render", false, "rewrite the render_* golden files under testdata/")

// paperTable reads a grid drawn in the PipeDream paper's style back into a
// table: line s is stage s on rank s, "." a bubble, "F3" the forward of
// microbatch 2 (microbatches are numbered from 1 in the drawing).
func paperTable(t *testing.T, text string) *Table {
	t.Helper()
	tb := &Table{}
	for s, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		_, cells, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("line %d has no label: %q", s+1, line)
		}
		var row []Action
		for _, cell := range strings.Fields(cells) {
			if cell == "." {
				row = append(row, Action{})
				continue
			}
			kind, err := ParseKind(cell[:1])
			if err != nil {
				t.Fatal(err)
			}
			mb, err := strconv.Atoi(cell[1:])
			if err != nil {
				t.Fatal(err)
			}
			row = append(row, Act(kind, s, mb-1))
		}
		tb.Rows = append(tb.Rows, row)
		tb.Placement = append(tb.Placement, s)
	}
	return tb
}

func TestRenderPipeDreamLayout(t *testing.T) {
	// The first 30 steps of PipeDream with S = 4, N = 12, as docs/reference.md
	// §1.2 draws them (copied into the golden file verbatim). Read back
	// into a table and rendered in paper style, the drawing must come out
	// byte for byte; with extra columns beyond 30, MaxColumns = 30 must cut
	// them off.
	want, err := os.ReadFile("testdata/render_pipedream_s4_n12.txt")
	if err != nil {
		t.Fatal(err)
	}
	tb := paperTable(t, string(want))
	longer := tb.Clone()
	for r := range longer.Rows {
		longer.Rows[r] = append(longer.Rows[r], Action{}, F(r, 99), B(r, 99))
	}
	for _, tc := range []struct {
		name string
		tb   *Table
		opt  RenderOptions
	}{
		{"all columns", tb, RenderOptions{Style: PaperStyle}},
		{"first 30 of more", longer, RenderOptions{Style: PaperStyle, MaxColumns: 30}},
	} {
		var buf bytes.Buffer
		if err := Render(&buf, tc.tb, tc.opt); err != nil {
			t.Fatal(err)
		}
		if buf.String() != string(want) {
			t.Errorf("%s: rendered\n%s\nwant\n%s", tc.name, buf.String(), want)
		}
	}
}

func TestRenderGolden(t *testing.T) {
	zb, err := Generate("interleaved-zb", Shape{Ranks: 2, Microbatches: 8, Chunks: 2})
	if err != nil {
		t.Fatal(err)
	}
	grid, err := LockstepSchedule(readCSVFile(t, "testdata/csv_simple_2rank_comms.csv"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		golden string
		tb     *Table
		opt    RenderOptions
	}{
		{"render_interleaved_zb_2x2x8_torch.txt", zb, RenderOptions{}},
		{"render_interleaved_zb_2x2x8_paper_20.txt", zb, RenderOptions{Style: PaperStyle, MaxColumns: 20}},
		{"render_simple_2rank_lockstep_torch.txt", grid, RenderOptions{}},
		{"render_simple_2rank_lockstep_paper.txt", grid, RenderOptions{Style: PaperStyle}},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		if err := Render(&buf, tc.tb, tc.opt); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", tc.golden)
		if *updateRender {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update-render to create it)", err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s: rendered\n%s\nwant\n%s", tc.golden, buf.String(), want)
		}
	}
}

func TestRenderLayoutRules(t *testing.T) {
	// Eleven ranks of one stage each: labels "rank 9:" and "rank 10:"
	// are padded to one width, so every line has the same length and the
	// cells start in the same column; cells are right-aligned to the widest
	// ("F11" in paper style, "10F10" in torch style).
	tb := &Table{}
	for s := range 11 {
		tb.Rows = append(tb.Rows, []Action{F(s, s)})
		tb.Placement = append(tb.Placement, s)
	}
	for _, tc := range []struct {
		opt              RenderOptions
		first, last      string
		lineLength, cell int
	}{
		{RenderOptions{Style: PaperStyle}, "rank 0:   F1", "rank 10: F11", len("rank 10:") + 4, 3},
		{RenderOptions{}, "rank 0:    0F0", "rank 10: 10F10", len("rank 10:") + 6, 5},
	} {
		var buf bytes.Buffer
		if err := Render(&buf, tb, tc.opt); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if len(lines) != 11 || lines[0] != tc.first || lines[10] != tc.last {
			t.Errorf("style %d: rendered\n%s", tc.opt.Style, buf.String())
		}
		for _, line := range lines {
			if len(line) != tc.lineLength {
				t.Errorf("style %d: line %q has length %d, want %d", tc.opt.Style, line, len(line), tc.lineLength)
			}
		}
	}
}

func TestRenderRankLabels(t *testing.T) {
	// Rows are ranks (docs/cli.md's convention), whatever the placement.
	// Two stages per rank (V placement): the paper style keeps the stage,
	// with microbatches counted from 1; rows shorter than the longest are
	// padded with bubbles. One stage per rank: rank r holding stage r, the
	// paper style leaves the stage out as the PipeDream paper does; stages
	// placed on other ranks keep it, so that no cell loses its stage.
	v := &Table{
		Rows:      [][]Action{{F(0, 0), {}, F(3, 0)}, {F(1, 0), F(2, 0)}},
		Placement: []int{0, 1, 1, 0},
	}
	one := &Table{Rows: [][]Action{{F(0, 0), B(0, 0)}, {F(1, 0), B(1, 0)}}, Placement: []int{0, 1}}
	swapped := &Table{Rows: [][]Action{{F(1, 0)}, {F(0, 0)}}, Placement: []int{1, 0}}
	for _, tc := range []struct {
		tb   *Table
		opt  RenderOptions
		want string
	}{
		{v, RenderOptions{Style: PaperStyle}, "rank 0: 0F1   . 3F1\nrank 1: 1F1 2F1   .\n"},
		{v, RenderOptions{}, "rank 0: 0F0   . 3F0\nrank 1: 1F0 2F0   .\n"},
		{v, RenderOptions{MaxColumns: 1}, "rank 0: 0F0\nrank 1: 1F0\n"},
		{one, RenderOptions{Style: PaperStyle}, "rank 0: F1 B1\nrank 1: F1 B1\n"},
		{one, RenderOptions{}, "rank 0: 0F0 0B0\nrank 1: 1F0 1B0\n"},
		{swapped, RenderOptions{Style: PaperStyle}, "rank 0: 1F1\nrank 1: 0F1\n"},
	} {
		var buf bytes.Buffer
		if err := Render(&buf, tc.tb, tc.opt); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tc.want {
			t.Errorf("%+v: rendered %q, want %q", tc.opt, buf.String(), tc.want)
		}
	}
}
