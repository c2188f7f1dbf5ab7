//go:build !unix || aix

package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/pipelab/pipelab/internal/atomicfile"
)

// acquire takes the lock by creating its file exclusively, where there is
// no flock(2). Whether a holder still runs cannot be told here, so every
// existing lock counts as held: nothing is ever taken over, and a lock
// left by a dead process is the user's to remove, as the error says.
func (l *folderLock) acquire(dir, host string) error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		if fi, lerr := os.Lstat(l.path); lerr == nil && !fi.Mode().IsRegular() {
			return notALock(l.path, "not a regular file ("+fileKind(fi.Mode())+")")
		}
		for range 200 {
			b, rerr := os.ReadFile(l.path)
			if pid, h, ok := parseLock(b); rerr == nil && ok {
				return fmt.Errorf("%w, or remove the lock if that process is gone", inUse(dir, l.path, pid, h, host))
			}
			time.Sleep(time.Millisecond)
		}
		return fmt.Errorf("%s is locked by %s, which names no holder; remove it if no sweep or merge writes %s", dir, l.path, dir)
	}
	if err != nil {
		return err
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
		return err
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
