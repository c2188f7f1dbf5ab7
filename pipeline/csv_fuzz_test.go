package pipeline

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// FuzzReadCSV checks ReadCSV on any input: it never panics, every rejection
// is a *ParseError that wraps ErrMalformed and names a line and a cell, and
// every accepted file survives WriteCSV and ReadCSV unchanged. Seeds are the
// PyTorch fixtures, the test schedules and malformed variants of them; more
// live in testdata/fuzz/FuzzReadCSV.
func FuzzReadCSV(f *testing.F) {
	for _, path := range []string{fixtureCompute, fixtureComms,
		"testdata/csv_simple_2rank_compute.csv", "testdata/csv_simple_2rank_comms.csv",
		"testdata/csv_v_2rank_4stage_compute.csv", "testdata/csv_v_2rank_4stage_comms.csv"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")))
		f.Add(data[:len(data)/2])
	}
	for _, s := range []string{
		"", "\n", "\r\n", `""` + "\r\n", ",,,\r\n",
		"0F0,1F0\r\n,1B0\r\n", "0F0\r\n2F0\r\n", "0F0,0F2\r\n",
		"(0F7;7B3)OVERLAP_F_B\r\n", "(0F0;1B0)OVERLAP_F_B,1F0\r\n",
		"0REDUCE_GRAD,0UNSHARD,0RESHARD\r\n", "0F0\r0F1\n", "\"0F0\"\n",
		"99999999999999999999F0\n", "0F1073741823\n", " 0F0 , 0B0 \n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := ReadCSV(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			var pe *ParseError
			if !errors.Is(err, ErrMalformed) || !errors.As(err, &pe) {
				t.Fatalf("rejection %v is not a *ParseError wrapping ErrMalformed", err)
			}
			if pe.Line < 1 || pe.Cell < 1 || pe.File != "fuzz.csv" || pe.Reason == "" {
				t.Fatalf("rejection %q does not name the file, a line, a cell and a reason", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, tb); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCSV(bytes.NewReader(buf.Bytes()), "fuzz.csv")
		if err != nil {
			t.Fatalf("reading back what WriteCSV wrote (%q): %v", buf.Bytes(), err)
		}
		if !tablesEqual(tb, back) {
			t.Fatalf("round trip changed the table: %q -> %q", data, buf.Bytes())
		}
	})
}
