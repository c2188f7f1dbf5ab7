package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveTrackedRemovesTemporariesAndRefusesNewOnes: after
// RemoveTracked no file can be created (until the test restores the
// registry, as no process does).
func TestRemoveTrackedRemovesTemporariesAndRefusesNewOnes(t *testing.T) {
	t.Cleanup(func() {
		tracked.Lock()
		tracked.stopping = false
		tracked.Unlock()
	})
	dir := t.TempDir()
	f, err := CreateTemp(dir, TempPattern("curves.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	lock := filepath.Join(dir, "lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Track(lock); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(dir, "kept")
	os.WriteFile(kept, nil, 0o644)
	RemoveTracked()
	for _, p := range []string{f.Name(), lock} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s survived RemoveTracked (%v)", p, err)
		}
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("an untracked file was removed: %v", err)
	}
	if _, err := CreateTemp(dir, "x*"); !errors.Is(err, ErrStopping) {
		t.Errorf("CreateTemp after RemoveTracked = %v, want ErrStopping", err)
	}
	if err := Track(kept); !errors.Is(err, ErrStopping) {
		t.Errorf("Track after RemoveTracked = %v, want ErrStopping", err)
	}
}
