package results

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestPeakMemoryNullWhereNotMeasured: a schedules row without a memory
// model (unit time, or the formula level) holds null in
// peak_memory_bytes, not 0 (docs/results.md: null means "not measured",
// never 0), and reads back as 0 in Go; a measured peak is kept.
func TestPeakMemoryNullWhereNotMeasured(t *testing.T) {
	rows := []ScheduleMetric{
		{ScheduleID: "a", Family: "1f1b", Ranks: 4, Microbatches: 8, Chunks: 1, CostModel: CostGPU, Level: LevelFormula, Makespan: 1, KindRank: 1},
		{ScheduleID: "a", Family: "1f1b", Ranks: 4, Microbatches: 8, Chunks: 1, CostModel: CostGPU, Level: LevelSimulated, Makespan: 1, PeakMemoryBytes: 42e9, KindRank: 1},
	}
	path := filepath.Join(t.TempDir(), "schedules.parquet")
	if err := WriteSchedules(path, rows); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tbl, err := pqarrow.ReadTable(context.Background(), f, parquet.NewReaderProperties(memory.DefaultAllocator), pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	idx := tbl.Schema().FieldIndices("peak_memory_bytes")
	if len(idx) != 1 {
		t.Fatal("no peak_memory_bytes column")
	}
	col := tbl.Column(idx[0]).Data()
	if col.NullN() != 1 {
		t.Errorf("%d nulls in peak_memory_bytes, want 1 (the formula row)", col.NullN())
	}
	back, err := ReadSchedules(path)
	if err != nil {
		t.Fatal(err)
	}
	var formula, simulated int64 = -1, -1
	for _, r := range back {
		switch r.Level {
		case LevelFormula:
			formula = r.PeakMemoryBytes
		case LevelSimulated:
			simulated = r.PeakMemoryBytes
		}
	}
	if formula != 0 || simulated != 42e9 {
		t.Errorf("read back formula %d, simulated %d; want 0 and 42e9", formula, simulated)
	}
}
