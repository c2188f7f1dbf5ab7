package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFileCaps(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(small, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, make([]byte, 11), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(small, "costs file", 10); err != nil || string(b) != "0123456789" {
		t.Errorf("a file at the cap: %q, %v", b, err)
	}
	_, err := ReadFile(big, "costs file", 10)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), big) || !strings.Contains(err.Error(), "costs file of 11 bytes") {
		t.Errorf("a file over the cap: %v", err)
	}
	// A device that never ends is cut at the cap: the read stops there.
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := ReadFile("/dev/zero", "hardware file", 1<<16)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "goes on past the 64 KiB") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	_, err = ReadFile(filepath.Join(dir, "none"), "costs file", 10)
	if err == nil || !strings.HasPrefix(err.Error(), "costs file: "+dir) || strings.Contains(err.Error(), "open ") {
		t.Errorf("a missing file: %v", err)
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"a\x00b":                 `"a\x00b"`,
		"tab\there":              `"tab\there"`,
		strings.Repeat("x", 40):  `"` + strings.Repeat("x", 40) + `"`,
		strings.Repeat("y", 1e6): `"` + strings.Repeat("y", 40) + `"... (976.6 KiB)`,
		// A cut inside a rune backs up to its start: 39 bytes, then é.
		strings.Repeat("z", 39) + "é" + strings.Repeat("z", 10): `"` + strings.Repeat("z", 39) + `"... (51 bytes)`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%.50q) = %s, want %s", in, got, want)
		}
	}
}

func TestParseDecimal(t *testing.T) {
	for in, want := range map[string]float64{"12": 12, "-0.5": -0.5, "3e-6": 3e-6, ".5": 0.5, "1.": 1, "+2E3": 2000} {
		if got, err := ParseDecimal(in); err != nil || got != want {
			t.Errorf("ParseDecimal(%q) = %g, %v; want %g", in, got, err, want)
		}
	}
	// strconv.ParseFloat takes each of these; a cell must not.
	for _, bad := range []string{"0x1p3", "1_000", "NaN", "Inf", "-Infinity", "1e400", "", " 1", "1e", "e5", "0x10"} {
		if x, err := ParseDecimal(bad); err == nil {
			t.Errorf("ParseDecimal(%q) = %g, want an error", bad, x)
		}
	}
}

func TestParseIndex(t *testing.T) {
	if n, err := ParseIndex("42", 100); err != nil || n != 42 {
		t.Errorf("ParseIndex(42) = %d, %v", n, err)
	}
	for _, bad := range []string{"12345678901234567890", "101", "-1", "+1", "1_0", "0x1"} {
		if _, err := ParseIndex(bad, 100); err == nil {
			t.Errorf("ParseIndex(%q) accepted", bad)
		}
	}
}
