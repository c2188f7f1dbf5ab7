package results

import (
	"path/filepath"
	"slices"
	"testing"
)

// A runs table written before target_loss was appended (so before
// held_out_loss and selection_bound too), or before held_out_loss, reads
// back with those rows' values zero (none) and the rest unchanged; a table
// that lacks a column other than the appended ones is still refused.
func TestReadWithoutAppendedColumn(t *testing.T) {
	want := genRuns(40)
	for _, first := range []string{"target_loss", "held_out_loss"} {
		old := runTable
		cut := slices.IndexFunc(old.columns, func(c column[Run]) bool { return c.name == first })
		old.columns = slices.Clone(old.columns[:cut])
		path := filepath.Join(t.TempDir(), "runs.parquet")
		if err := writeTable(path, &old, slices.Clone(want)); err != nil {
			t.Fatal(err)
		}
		got, err := ReadRuns(path)
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]Run{}
		for _, r := range want {
			if first == "target_loss" {
				r.TargetLoss = 0
			}
			r.HeldOutLoss, r.SelectionBound, r.MethodSettings = 0, "", ""
			byID[r.RunID] = r
		}
		for _, r := range got {
			if w := byID[r.RunID]; formatRows([]Run{r})[0] != formatRows([]Run{w})[0] {
				t.Errorf("without %s: run %s: read %+v, want %+v", first, r.RunID, r, w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("without %s: %d rows read, %d written", first, len(got), len(want))
		}
	}
	path := filepath.Join(t.TempDir(), "runs.parquet")
	short := runTable
	short.columns = slices.DeleteFunc(slices.Clone(short.columns), func(c column[Run]) bool { return c.name == "loss_at_budget" })
	if err := writeTable(path, &short, slices.Clone(want)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRuns(path); err == nil {
		t.Error("a runs table without loss_at_budget was read")
	}
}
