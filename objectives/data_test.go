package objectives

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadCSV(t *testing.T) {
	ds, err := ReadCSV(strings.NewReader("1,2,3\n\n4, 5 ,6\r\n"), "X.csv", strings.NewReader("0\n1\n"), "y.csv")
	if err != nil {
		t.Fatal(err)
	}
	if ds.Rows != 2 || ds.Cols != 3 || !slices.Equal(ds.X, []float64{1, 2, 3, 4, 5, 6}) || !slices.Equal(ds.Y, []float64{0, 1}) {
		t.Errorf("read %+v", ds)
	}
}

// Every malformed input is refused with the file, line and, for X, the
// column named.
func TestReadCSVErrors(t *testing.T) {
	cases := []struct {
		name, x, y, want string
	}{
		{"bad number", "1,2\n3,x\n", "0\n1\n", "X.csv line 2 column 2"},
		{"ragged row", "1,2\n3\n", "0\n1\n", "X.csv line 2: 1 columns, want 2"},
		{"infinite", "1,inf\n", "0\n", "X.csv line 1 column 2"},
		{"bad target", "1\n2\n", "0\nno\n", "y.csv line 2"},
		{"too few targets", "1\n2\n", "0\n", "y.csv has 1 values but X.csv has 2 rows"},
		{"empty", "\n", "", "X.csv has no rows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(c.x), "X.csv", strings.NewReader(c.y), "y.csv")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func TestLoadCSV(t *testing.T) {
	dir := t.TempDir()
	xp, yp := filepath.Join(dir, "X.csv"), filepath.Join(dir, "y.csv")
	if err := os.WriteFile(xp, []byte("0.5,-1\n2,3e-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(yp, []byte("1\n0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := LoadCSV(xp, yp)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.X, []float64{0.5, -1, 2, 0.3}) {
		t.Errorf("X = %v", ds.X)
	}
	if _, err := LoadCSV(filepath.Join(dir, "missing.csv"), yp); err == nil || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("missing file: %v", err)
	}
}
