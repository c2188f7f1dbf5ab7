package experiments

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"pipelab/internal/atomicfile"
)

// LockFile is the name of the lock an output folder holds while a sweep or
// a merge writes it: one line "pid PID host HOST" naming the holder.
const LockFile = "pipelab.lock"

// folderLock is a held output-folder lock.
type folderLock struct {
	path, content string
}

// lockFolder takes dir's lock, creating dir if needed. A lock held by a
// live process, or by a process on another host (whose liveness cannot be
// seen from here), is an error naming the holder; a lock left by a process
// of this host that no longer runs is taken over.
func lockFolder(dir string) (*folderLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	l := &folderLock{path: filepath.Join(dir, LockFile), content: fmt.Sprintf("pid %d host %s\n", os.Getpid(), host)}
	for range 2 {
		err := l.create()
		if err == nil {
			return l, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		pid, holder, ok := readLock(l.path)
		switch {
		case !ok:
			return nil, fmt.Errorf("experiments: %s is locked by %s, which does not name its holder; remove it if no sweep or merge writes %s", dir, l.path, dir)
		case holder == host && !processAlive(pid):
			// A dead holder's lock: take it over.
			if err := os.Remove(l.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("experiments: taking over the stale lock %s: %w", l.path, err)
			}
		default:
			return nil, fmt.Errorf("experiments: %s is in use by pid %d on host %s (lock %s); wait for it to finish, or remove the lock if that process is gone",
				dir, pid, holder, l.path)
		}
	}
	return nil, fmt.Errorf("experiments: %s: another process took the lock %s while this one took over a stale one", dir, l.path)
}

// create makes the lock file exclusively and tracks it, so that a signal
// handler removes it (atomicfile.RemoveTracked).
func (l *folderLock) create() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return err
	}
	if err != nil {
		return fmt.Errorf("experiments: %w", err)
	}
	_, err = f.WriteString(l.content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = atomicfile.Track(l.path)
	}
	if err != nil {
		os.Remove(l.path)
		return fmt.Errorf("experiments: %w", err)
	}
	return nil
}

// unlock removes the lock if it is still this process's.
func (l *folderLock) unlock() {
	if b, err := os.ReadFile(l.path); err == nil && string(b) == l.content {
		os.Remove(l.path)
	}
	atomicfile.Untrack(l.path)
}

// readLock reads the holder a lock file names.
func readLock(path string) (pid int, host string, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, "", false
	}
	f := strings.Fields(string(b))
	if len(f) != 4 || f[0] != "pid" || f[2] != "host" {
		return 0, "", false
	}
	pid, err = strconv.Atoi(f[1])
	return pid, f[3], err == nil && pid > 0
}
