package objectives

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// FuzzReadCSV checks the data loader on any pair of inputs: it never
// panics, every rejection names one of the two files, and every accepted
// data set is a full Rows × Cols matrix of finite numbers with one finite
// label per row.
func FuzzReadCSV(f *testing.F) {
	for _, s := range [][2]string{
		{"1,2\n3,4\n", "0\n1\n"}, {"1\n", "1\n"}, {"", ""}, {"1,2\n3\n", "0\n1\n"}, {"1,nan\n", "0\n"},
		{"1,2\n", "0\n1\n"}, {"1e308,1e308\n", "inf\n"}, {" 1 , 2 \r\n\n", " 3 \n"}, {"0x1p-2\n", "1_0\n"},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, x, y []byte) {
		ds, err := ReadCSV(bytes.NewReader(x), "x.csv", bytes.NewReader(y), "y.csv")
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, "x.csv") && !strings.Contains(msg, "y.csv") {
				t.Fatalf("rejection %q names neither file", err)
			}
			return
		}
		if ds.Rows < 1 || ds.Cols < 1 || len(ds.X) != ds.Rows*ds.Cols || len(ds.Y) != ds.Rows {
			t.Fatalf("accepted %d × %d with %d entries and %d labels", ds.Rows, ds.Cols, len(ds.X), len(ds.Y))
		}
		for _, v := range append(append([]float64(nil), ds.X...), ds.Y...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("accepted a value %v", v)
			}
		}
	})
}
