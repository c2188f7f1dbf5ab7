package pipeline

import (
	"errors"
	"strings"
	"testing"
)

// TestValidateFileNamesTheCell: a schedule file that breaks the order of a
// stage is named as check names it, FILE:LINE: cell N counted from 1
// (issue 39: simulate and delays --schedule said "rank 1 cell 1", no file,
// cells from 0, where check said "bad.csv:2: cell 2").
func TestValidateFileNamesTheCell(t *testing.T) {
	tab, err := ReadCSV(strings.NewReader("0F0,,,,0B0\n,1B0,1F0\n"), "bad.csv")
	if err != nil {
		t.Fatal(err)
	}
	err = tab.ValidateFile("bad.csv")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != "bad.csv" || pe.Line != 2 || pe.Cell != 2 || !strings.HasPrefix(pe.Error(), "bad.csv:2: cell 2: 1B0: ") {
		t.Errorf("ValidateFile = %v, want bad.csv:2: cell 2: 1B0: ...", err)
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("%v does not match ErrInvalid", err)
	}
	ok, err := ReadCSV(strings.NewReader("0F0,,,,0B0\n,1F0,1B0\n"), "ok.csv")
	if err != nil {
		t.Fatal(err)
	}
	if err := ok.ValidateFile("ok.csv"); err != nil {
		t.Errorf("a valid file: %v", err)
	}
}
