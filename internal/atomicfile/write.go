package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
)

// Write writes the file at path through write: into a tracked temporary
// file in path's directory, made world-readable (0644, an ordinary output),
// synced, closed and renamed over path, the directory then synced so the
// rename is durable. On any error the temporary file is removed and path is
// left as it was; the error is returned as it came (callers add the path
// or flag).
func Write(path string, write func(*os.File) error) error {
	f, err := CreateTemp(filepath.Dir(path), TempPattern(filepath.Base(path)))
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer Untrack(tmp)
	err = f.Chmod(0o644)
	if err == nil {
		err = write(f)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	SyncDir(filepath.Dir(path))
	return nil
}

// TempPattern is the os.CreateTemp pattern of the temporary files written
// for a file named base: hidden, and marked with ".tmp-" so that IsTemp
// recognizes them.
func TempPattern(base string) string { return "." + base + tempMark + "*" }

const tempMark = ".tmp-"

// IsTemp reports whether a file name is one of the temporary files
// TempPattern names (left behind by a process that was killed mid-write).
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMark)
}

// SyncDir makes a rename in dir durable; a platform that cannot sync a
// directory keeps the rename all the same, so failures are ignored.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
