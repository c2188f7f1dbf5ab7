package optim

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadDelayTrace checks ReadDelayTrace on any input: it never panics,
// every rejection names the file, and every accepted trace keeps its
// invariants: at least one stage, each row's stage below the stage count,
// one delay per stage, none above the number of updates before the row.
func FuzzReadDelayTrace(f *testing.F) {
	for _, s := range []string{
		"stage,batch,d0,d1\n0,0,0,0\n1,0,1,0\n0,1,1,2\n",
		"0,0,0\n0,1,1\n", "", "stage\n", "0,0\n", "0,0,1\n", "1,0,0\n", "0,0,0,0\n0,0,0\n",
		"0,0,-1\n", " 0 , 0 , 0 \r\n", "0,0,99999999999999999999\n", "0,0,0\n\n\n0,1,1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dt, err := ReadDelayTrace(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.csv") {
				t.Fatalf("rejection %q does not name the file", err)
			}
			return
		}
		if dt.Stages < 1 || len(dt.Rows) == 0 {
			t.Fatalf("accepted a trace of %d stages and %d rows", dt.Stages, len(dt.Rows))
		}
		for k, r := range dt.Rows {
			if r.Stage < 0 || r.Stage >= dt.Stages || len(r.Delays) != dt.Stages {
				t.Fatalf("row %d: stage %d of %d, %d delays", k, r.Stage, dt.Stages, len(r.Delays))
			}
			for _, d := range r.Delays {
				if d < 0 || d > k {
					t.Fatalf("row %d: delay %d outside [0, %d]", k, d, k)
				}
			}
		}
	})
}
