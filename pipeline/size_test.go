package pipeline

import "testing"

// cells counts the cells of a table, bubbles included, an OVERLAP_F_B
// cell as the two actions it pairs (as CellBound counts them).
func cells(t *Table) int {
	n := 0
	for _, row := range t.Rows {
		n += len(row)
		for _, a := range row {
			if a.Kind == OverlapFB {
				n++
			}
		}
	}
	return n
}

// TestCellBoundHolds generates every family on a grid of shapes and checks
// CellBound against the count of the generated table: never below it, and
// within a factor 4 above (2 once M ≥ 4P), so that a refusal's "needs about" is honest.
func TestCellBoundHolds(t *testing.T) {
	for _, f := range Families() {
		for _, p := range []int{2, 4, 6, 8, 16} {
			for _, m := range []int{1, 3, 8, 16, 32, 64, 128} {
				sh := Shape{Ranks: p, Microbatches: m}
				if f.Name == "localsgd" {
					sh.LocalSteps = 2
				}
				tab, err := Generate(f.Name, sh)
				if err != nil {
					continue // a shape the family refuses
				}
				bound, err := CellBound(f.Name, sh)
				if err != nil {
					t.Fatalf("%s P=%d M=%d: %v", f.Name, p, m, err)
				}
				got := float64(cells(tab))
				over := 4.0
				if m >= 4*p {
					over = 2
				}
				if bound < got || bound > over*got {
					t.Errorf("%s P=%d M=%d: bound %g for %g cells, want within [1, %g] times", f.Name, p, m, bound, got, over)
				}
			}
		}
	}
}
