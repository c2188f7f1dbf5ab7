package pipeline

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// FuzzReadCSV checks ReadCSV and then ValidateCSV on any input: neither
// panics, every rejection is a *ParseError that wraps ErrMalformed and names
// a line of the file and a cell, every file ReadCSV accepts survives WriteCSV
// and ReadCSV unchanged, and ValidateCSV gives the table read back the same
// verdict. Seeds are the
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
		"0F0,,0B0\r\n,1B0\r\n", "0F0,0I0,0B0,0W0\r\n", "0F0,0F1,0I0,0W0,0I1\r\n",
		"\ufeff0F0,0B0\r\n", "0F0,0B0\r\n1REDUCE_GRAD\r\n", "0F0,1F0,(0F1;1B1)OVERLAP_F_B\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := ReadCSV(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			checkRejection(t, err, data)
			return
		}
		verdict := ValidateCSV(tb, "fuzz.csv")
		if verdict != nil {
			checkRejection(t, verdict, data)
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
		if again := ValidateCSV(back, "fuzz.csv"); (again == nil) != (verdict == nil) || again != nil && again.Error() != verdict.Error() {
			t.Fatalf("ValidateCSV says %v of %q but %v of the table read back", verdict, data, again)
		}
	})
}

// checkRejection fails unless err is a *ParseError wrapping ErrMalformed
// that names fuzz.csv, a line of data, a cell and a reason.
func checkRejection(t *testing.T, err error, data []byte) {
	t.Helper()
	var pe *ParseError
	if !errors.Is(err, ErrMalformed) || !errors.As(err, &pe) {
		t.Fatalf("rejection %v is not a *ParseError wrapping ErrMalformed", err)
	}
	lines := max(1, bytes.Count(data, []byte("\n"))+1)
	if pe.Line < 1 || pe.Line > lines || pe.Cell < 1 || pe.File != "fuzz.csv" || pe.Reason == "" {
		t.Fatalf("rejection %q does not name the file, one of its %d lines, a cell and a reason", err, lines)
	}
}
