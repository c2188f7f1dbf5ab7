package pipeline

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// RenderStyle chooses how Render writes a cell.
type RenderStyle uint8

const (
	// TorchStyle writes actions as PyTorch does: "2F0", "1SEND_B3", with
	// stages and microbatches counted from 0.
	TorchStyle RenderStyle = iota
	// PaperStyle writes microbatches counted from 1 and leaves the stage
	// out when rank r holds stage r alone, for every r ("F1", "B12"), as
	// the PipeDream paper draws its timeline (docs/reference.md §1.2).
	PaperStyle
)

// RenderOptions configures Render. The zero value renders every column in
// TorchStyle.
type RenderOptions struct {
	// MaxColumns caps the number of columns (steps) shown; 0 shows all.
	MaxColumns int
	// Style chooses the cell text.
	Style RenderStyle
}

// Render writes t as a text grid: one line per rank, one column per cell,
// "." for a bubble, every column right-aligned to the width of the widest
// cell shown and preceded by a space. A rank's line is labelled "rank r:"
// (the naming convention: rows are ranks, docs/cli.md); a cell names its
// stage, which PaperStyle leaves out only when every rank r holds stage r
// alone. Shorter rows are padded with bubbles to the longest row shown.
func Render(w io.Writer, t *Table, opt RenderOptions) error {
	perRank := stagesPerRank(t)
	stageIsRank := len(perRank) > 0
	for r, stages := range perRank {
		stageIsRank = stageIsRank && len(stages) == 1 && stages[0] == r
	}
	columns := 0
	for _, row := range t.Rows {
		columns = max(columns, len(row))
	}
	if opt.MaxColumns > 0 {
		columns = min(columns, opt.MaxColumns)
	}
	labels := make([]string, t.Ranks())
	cells := make([][]string, t.Ranks())
	labelWidth, cellWidth := 0, 1
	for r, row := range t.Rows {
		labels[r] = fmt.Sprintf("rank %d:", r)
		labelWidth = max(labelWidth, len(labels[r]))
		cells[r] = make([]string, columns)
		for c := range columns {
			cells[r][c] = "."
			if c < len(row) && !row[c].IsBubble() {
				cells[r][c] = cellText(row[c], opt.Style, stageIsRank)
			}
			cellWidth = max(cellWidth, len(cells[r][c]))
		}
	}
	bw := bufio.NewWriter(w)
	for r := range cells {
		fmt.Fprintf(bw, "%-*s", labelWidth, labels[r])
		for _, cell := range cells[r] {
			fmt.Fprintf(bw, " %*s", cellWidth, cell)
		}
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("pipeline: render: %w", err)
	}
	return nil
}

// stagesPerRank lists the stages each rank holds, in stage order.
func stagesPerRank(t *Table) [][]int {
	perRank := make([][]int, t.Ranks())
	for s, r := range t.Placement {
		if r >= 0 && r < len(perRank) {
			perRank[r] = append(perRank[r], s)
		}
	}
	return perRank
}

// cellText writes one non-bubble action in a style; PaperStyle leaves the
// stage out when it is the rank's.
func cellText(a Action, style RenderStyle, stageIsRank bool) string {
	if style != PaperStyle {
		return a.String()
	}
	single := func(k Kind, s, m int) string {
		var b strings.Builder
		if !stageIsRank {
			b.WriteString(strconv.Itoa(s))
		}
		b.WriteString(k.String())
		if k.HasMicrobatch() {
			b.WriteString(strconv.Itoa(m + 1))
		}
		return b.String()
	}
	if a.Kind == OverlapFB {
		return "(" + single(Forward, a.Stage, a.Microbatch) + ";" + single(Backward, a.BackStage, a.BackMicrobatch) + ")"
	}
	return single(a.Kind, a.Stage, a.Microbatch)
}
