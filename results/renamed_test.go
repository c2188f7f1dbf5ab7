package results

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A schedules table written before kind_rank was renamed from
// family_rank (docs/results.md) reads back as the same rows; any other
// name in its place is still refused, naming the column.
func TestReadRenamedColumn(t *testing.T) {
	want := genSchedules()
	write := func(name string) string {
		old := scheduleTable
		old.columns = slices.Clone(old.columns)
		for i := range old.columns {
			if old.columns[i].name == "kind_rank" {
				old.columns[i].name = name
			}
		}
		path := filepath.Join(t.TempDir(), name+".parquet")
		if err := writeTable(path, &old, slices.Clone(want)); err != nil {
			t.Fatal(err)
		}
		return path
	}
	got, err := ReadSchedules(write("family_rank"))
	if err != nil {
		t.Fatal(err)
	}
	sorted := slices.Clone(want)
	slices.SortFunc(sorted, func(x, y ScheduleMetric) int { return scheduleTable.compare(&x, &y) })
	if !reflect.DeepEqual(got, sorted) {
		t.Errorf("family_rank file: %d rows differ from the %d written", len(got), len(sorted))
	}
	if _, err := ReadSchedules(write("rank_of_kind")); err == nil || !strings.Contains(err.Error(), "rank_of_kind") {
		t.Errorf("a column rank_of_kind: %v, want an error naming it", err)
	}
}
