//go:build unix && !aix

package sweep

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipelab/pipelab/internal/atomicfile"
)

// acquire takes the lock with flock(2): whoever holds the flock holds the
// folder, so two processes can never both hold it, and a dead holder's
// lock is free again, as the kernel releases it with the process. The file
// is never removed by anyone but its holder, and by it only while it still
// holds the flock (unlock).
func (l *folderLock) acquire(dir, host string) error {
	for range 1000 {
		f, err := openLock(l.path)
		if err != nil {
			return err
		}
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return heldBy(dir, l.path, host)
		}
		if err != nil {
			f.Close()
			return fmt.Errorf("locking %s: %w", l.path, err)
		}
		// A holder removes its file before it lets go of the flock, so the
		// file locked here may be one it has just removed: the lock is
		// this process's only if the file is still the one at the path.
		if !isLockFile(f, l.path) {
			f.Close()
			continue
		}
		if err := l.claim(f, dir, host); err != nil {
			f.Close()
			return err
		}
		l.f = f
		return nil
	}
	return fmt.Errorf("%s: the lock %s changed hands too often to be taken; try again", dir, l.path)
}

// openLock opens or creates the lock file at path without following a
// symbolic link there and without waiting on a FIFO (O_NOFOLLOW,
// O_NONBLOCK), and refuses anything but a regular file: a link planted at
// the path would have the sweep write its pid line into the link's target,
// and reading a FIFO would wait for a writer that never comes.
func openLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0o644)
	if errors.Is(err, unix.ELOOP) {
		return nil, notALock(path, "a symbolic link")
	}
	if errors.Is(err, unix.EISDIR) {
		return nil, notALock(path, "not a regular file (a folder)")
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notALock(path, "not a regular file ("+fileKind(fi.Mode())+")")
	}
	return f, nil
}

// claim writes this process into the lock file f, whose flock it holds,
// and tracks the file, so that a signal handler removes it
// (atomicfile.RemoveTracked). A lock naming another host is left alone:
// its holder may run there, where flock on a shared file system may not
// reach.
func (l *folderLock) claim(f *os.File, dir, host string) error {
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return fmt.Errorf("reading %s: %w", l.path, err)
	}
	if pid, h, ok := parseLock(b); ok && h != host {
		return inUse(dir, l.path, pid, h, host)
	}
	if err := f.Truncate(0); err != nil {
		return fmt.Errorf("writing %s: %w", l.path, err)
	}
	if _, err := f.WriteAt([]byte(l.content), 0); err != nil {
		return fmt.Errorf("writing %s: %w", l.path, err)
	}
	return atomicfile.Track(l.path)
}

// isLockFile reports whether the open file f is the file at path.
func isLockFile(f *os.File, path string) bool {
	open, err1 := f.Stat()
	there, err2 := os.Lstat(path)
	return err1 == nil && err2 == nil && os.SameFile(open, there)
}

// heldBy is the error for a lock whose flock another process holds. That
// process writes its pid and host right after taking the flock, so a lock
// read in between names nobody yet, or the dead holder before it: it is
// read again for a while.
func heldBy(dir, path, host string) error {
	for range 200 {
		b, err := os.ReadFile(path)
		if pid, h, ok := parseLock(b); err == nil && ok && (h != host || processAlive(pid)) {
			return inUse(dir, path, pid, h, host)
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("%s is in use by another process, whose lock %s does not name it yet; wait for it to finish", dir, path)
}

// unlock removes the lock file while the flock still holds it, then lets
// go of the flock.
func (l *folderLock) unlock() {
	if isLockFile(l.f, l.path) {
		os.Remove(l.path)
	}
	atomicfile.Untrack(l.path)
	l.f.Close()
}

// processAlive reports whether a process with this pid runs on this host
// (signal 0 checks without signalling; EPERM is a live process of another
// user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
