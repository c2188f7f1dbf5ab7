package atomicfile

import (
	"errors"
	"os"
	"sync"
)

// ErrStopping is returned by CreateTemp once RemoveTracked has run: the
// process is exiting and starts no new file.
var ErrStopping = errors.New("atomicfile: the process is stopping")

// tracked is the set of paths RemoveTracked removes.
var tracked = struct {
	sync.Mutex
	paths    map[string]struct{}
	stopping bool
}{paths: map[string]struct{}{}}

// Track adds path to the files RemoveTracked removes. It returns
// ErrStopping, and does not track path, once RemoveTracked has run.
func Track(path string) error {
	tracked.Lock()
	defer tracked.Unlock()
	if tracked.stopping {
		return ErrStopping
	}
	tracked.paths[path] = struct{}{}
	return nil
}

// Untrack removes path from the tracked files, once it has been renamed
// into place or removed.
func Untrack(path string) {
	tracked.Lock()
	delete(tracked.paths, path)
	tracked.Unlock()
}

// CreateTemp creates a temporary file as os.CreateTemp does and tracks it;
// the caller untracks it after renaming or removing it.
func CreateTemp(dir, pattern string) (*os.File, error) {
	tracked.Lock()
	defer tracked.Unlock()
	if tracked.stopping {
		return nil, ErrStopping
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	tracked.paths[f.Name()] = struct{}{}
	return f, nil
}

// RemoveTracked removes every tracked file (a tracked folder with what it
// holds) and makes later CreateTemp and
// Track calls fail, for a process about to exit. A writer that renames its
// temporary file into place concurrently either wins (its file is whole)
// or finds the temporary file gone (and leaves path as it was).
func RemoveTracked() {
	tracked.Lock()
	defer tracked.Unlock()
	tracked.stopping = true
	for p := range tracked.paths {
		os.RemoveAll(p)
	}
	clear(tracked.paths)
}
