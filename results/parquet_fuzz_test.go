package results

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadTable feeds arbitrary bytes, seeded with real runs and curves
// tables and their truncations, to the one Parquet reader every table goes
// through (readTable, here by ReadRuns and ReadCurves): a file that is not
// one of pipelab's tables must be refused with an error, never a panic.
func FuzzReadTable(f *testing.F) {
	dir := f.TempDir()
	runs, curves := filepath.Join(dir, RunsFile), filepath.Join(dir, "curves.parquet")
	if err := WriteRuns(runs, []Run{{RunID: "a", Method: "pipedream", Stages: 4}, {RunID: "b", Method: "sync", Stages: 4}}); err != nil {
		f.Fatal(err)
	}
	if err := WriteCurves(curves, []CurvePoint{{RunID: "a", Loss: 1}, {RunID: "a", Loss: 0.5}}); err != nil {
		f.Fatal(err)
	}
	for _, p := range []string{runs, curves} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "table.parquet")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, _ = ReadRuns(p)
		_, _ = ReadCurves(p)
	})
}
