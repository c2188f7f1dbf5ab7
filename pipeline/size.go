package pipeline

import "unsafe"

// ActionBytes is the size of one cell of a Table in memory.
const ActionBytes = int(unsafe.Sizeof(Action{}))

// CellBound bounds, without generating it, the number of cells (bubbles
// included, an OVERLAP_F_B cell counted as the two actions it pairs: see
// longestRow) of the table family would generate for sh. A row of every
// family holds a cells per microbatch (a = 2 for F and B, 3 with a split
// backward, per stage of the row that the microbatch visits) plus a fill
// and drain of fewer than 3·V·P steps (V stages per rank): rows × (a·M +
// 3·V·P). The rows per rank, V and a are read from the family's tables of
// the same options on P' = 2 and 4 ranks with 4P' and 8P' microbatches
// (a the larger of the two), which are tiny;
// the family's error, if it refuses those options, is returned. Measured
// against the generated tables of every family (TestCellBoundHolds), the
// bound is at most 4 times the real count, and within 2 times once M
// is at least 4P.
func CellBound(family string, sh Shape) (float64, error) {
	small := func(p, m int) (*Table, error) {
		s := sh
		s.Ranks, s.Microbatches, s.NOAM = p, m, 0
		if sh.Replicas == sh.Ranks {
			s.Replicas = 0
		}
		return Generate(family, s)
	}
	var perMicrobatch, rows, v float64
	for _, p := range []int{2, 4} {
		a, err := small(p, 4*p)
		if err != nil {
			return 0, err
		}
		b, err := small(p, 8*p)
		if err != nil {
			return 0, err
		}
		perMicrobatch = max(perMicrobatch, float64(longestRow(b)-longestRow(a))/float64(4*p))
		rows = float64(a.Ranks()) / float64(p) * float64(sh.Ranks)
		v = max(float64(a.Stages())/float64(a.Ranks()), 1)
	}
	p, m := float64(sh.Ranks), float64(sh.Microbatches)
	return rows * (perMicrobatch*m + 3*v*p), nil
}

// longestRow is the cell count of t's longest row, an OVERLAP_F_B cell
// counted as the two actions it pairs: a command holds, lowers and writes
// both (its CSV text, "(0F7;7B3)OVERLAP_F_B", is several cells' worth), so
// a family of pairs (dualpipe, dualpipev, combined-1f1b) needs the bytes
// of two cells for each.
func longestRow(t *Table) int {
	n := 0
	for _, row := range t.Rows {
		cells := len(row)
		for _, a := range row {
			if a.Kind == OverlapFB {
				cells++
			}
		}
		n = max(n, cells)
	}
	return n
}

// CSVReadBytes is the memory ReadCSV may hold per byte of a schedule
// file, what a command's guard multiplies a file's size by before reading
// it. An empty cell is one byte (",") and becomes a 40-byte Action in a row
// that append grows by a quarter at a time, the old array live beside the
// new one, and the garbage collector lets the heap grow to twice what was
// live at its last collection: 8 MB of commas on one line peaked at 145 B a
// byte, 30 MB at 120 (issue 39), on 8 lines at 79
// (TestSizeEstimatesCoverThePeak in cmd/pipelab). 80, the estimate before,
// admitted a 30 MB file under a 3 GB limit that peaked at 3.59 GB.
const CSVReadBytes = 240
