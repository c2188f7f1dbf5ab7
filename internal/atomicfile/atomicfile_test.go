package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteLeavesOnlyTheWholeFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := Write(path, func(f *os.File) error { _, err := f.WriteString("a,b\n"); return err }); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "a,b\n" {
		t.Fatalf("read back %q, %v; want %q", got, err, "a,b\n")
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	// A failing writer leaves the old file and no temporary file.
	boom := errors.New("disk full")
	if err := Write(path, func(f *os.File) error { f.WriteString("partial"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("Write = %v, want %v", err, boom)
	}
	got, _ = os.ReadFile(path)
	entries, _ := os.ReadDir(dir)
	if string(got) != "a,b\n" || len(entries) != 1 {
		t.Errorf("after a failed write: %q and %d entries, want the old file alone", got, len(entries))
	}
}

func TestIsTempNamesTheTemporaryFiles(t *testing.T) {
	for name, want := range map[string]bool{
		".runs.parquet.tmp-123": true, "runs.parquet": false, ".lock": false, "x.tmp-1": false,
	} {
		if IsTemp(name) != want {
			t.Errorf("IsTemp(%q) = %v, want %v", name, !want, want)
		}
	}
	f, err := CreateTemp(t.TempDir(), TempPattern("runs.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	defer Untrack(f.Name())
	if !IsTemp(filepath.Base(f.Name())) {
		t.Errorf("IsTemp(%q) = false for a name TempPattern made", f.Name())
	}
}
