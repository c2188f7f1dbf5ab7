package budget

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"1073741824", 1 << 30}, {"16G", 16e9}, {"16GB", 16e9}, {"1.5GiB", 3 << 29}, {"512MiB", 512 << 20}, {"2 TB", 2e12}, {"100K", 1e5},
	} {
		if got, err := ParseBytes(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "G", "-1G", "0", "NaN", "Inf", "1e400", "12 parsecs"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted", bad)
		}
	}
}

func TestFormat(t *testing.T) {
	for in, want := range map[float64]string{800e9: "800 GB", 2.8e15: "2.8 PB", 1.25e9: "1.2 GB", 512: "512 B", 12e6: "12 MB"} {
		if got := Format(in); got != want {
			t.Errorf("Format(%g) = %q, want %q", in, got, want)
		}
	}
}

// TestLimitPrecedence: --max-memory over PIPELAB_MAX_MEMORY over the
// default, and Check's message names both ways to change it.
func TestLimitPrecedence(t *testing.T) {
	t.Setenv(EnvVar, "2G")
	defer SetLimit(0)
	if b, src, err := Limit(); err != nil || b != 2e9 || src != EnvVar {
		t.Errorf("Limit = %d, %s, %v; want 2e9 from %s", b, src, err, EnvVar)
	}
	SetLimit(1e6)
	if b, src, _ := Limit(); b != 1e6 || src != "--max-memory" {
		t.Errorf("Limit = %d from %s, want 1e6 from --max-memory", b, src)
	}
	err := Check("a 4096 × 100000 table", 16e9)
	want := "a 4096 × 100000 table needs about 16 GB; the limit is 1.0 MB, set by --max-memory or PIPELAB_MAX_MEMORY"
	if !errors.Is(err, ErrTooLarge) || err.Error() != want {
		t.Errorf("Check = %v, want %q", err, want)
	}
	if err := Check("a small table", 1e5); err != nil {
		t.Errorf("Check under the limit: %v", err)
	}
	SetLimit(0)
	t.Setenv(EnvVar, "lots")
	if _, _, err := Limit(); err == nil || !strings.Contains(err.Error(), EnvVar) {
		t.Errorf("a bad %s: %v, want an error naming it", EnvVar, err)
	}
	t.Setenv(EnvVar, "")
	if b, src, _ := Limit(); src != "default" || b <= 0 {
		t.Errorf("default limit %d from %s", b, src)
	}
}

// TestParseBytesBareSmallNumberNeedsAUnit: a number without a unit below
// 1 MiB is refused with the unit it most likely meant (issue 39: tune
// --gpu-memory 40 was 40 bytes, and nothing fitted, with no hint).
func TestParseBytesBareSmallNumberNeedsAUnit(t *testing.T) {
	for _, in := range []string{"40", "80", "1048575"} {
		_, err := ParseBytes(in)
		if err == nil || !strings.Contains(err.Error(), in+"GB") {
			t.Errorf("ParseBytes(%q) = %v, want a refusal suggesting %sGB", in, err, in)
		}
	}
	if got, err := ParseBytes("1048576"); err != nil || got != 1<<20 {
		t.Errorf("ParseBytes(1048576) = %d, %v; want 1 MiB", got, err)
	}
}

// FuzzParseBytes: ParseBytes never panics, and a size it accepts is at
// least 1 MiB without a unit, at least 1 byte with one, and at most half
// the largest int64.
func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"16G", "1.5GiB", "1073741824", "40", "", "1e400", "-1G", "0x10G", "1_000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseBytes(s)
		if err != nil {
			return
		}
		if v < 1 || v > math.MaxInt64/2 {
			t.Fatalf("ParseBytes(%q) = %d", s, v)
		}
	})
}
