package sweep

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockFile is the name of the lock an output folder holds while a sweep or
// a merge writes it: one line "pid PID host HOST" naming the holder, for
// the message of a process it keeps out. On unix what holds the folder is
// an flock(2) on that file (lock_flock.go), which the kernel lets go of
// when the holder dies, however it dies; elsewhere the file's existence
// does (lock_other.go).
const LockFile = "pipelab.lock"

// folderLock is a held output-folder lock.
type folderLock struct {
	path, content string
	// f is the open lock file whose flock holds the folder (nil where
	// there is no flock).
	f *os.File
}

// lockFolder takes dir's lock, creating dir if needed. A lock held by a
// running process, or one naming a process of another host (whose
// liveness cannot be seen from here), is an error naming the holder; a
// lock left by a process that no longer runs is taken over.
func lockFolder(dir string) (*folderLock, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, badInputf("%s is a file, not a folder: the output (--out) is a folder pipelab writes into", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	l := &folderLock{path: filepath.Join(dir, LockFile), content: lockContent(os.Getpid(), host)}
	if err := l.acquire(dir, host); err != nil {
		return nil, err
	}
	return l, nil
}

func lockContent(pid int, host string) string {
	return fmt.Sprintf("pid %d host %s\n", pid, host)
}

// parseLock reads the holder a lock file's content names; a content cut
// short (the holder still writing it) names none.
func parseLock(b []byte) (pid int, host string, ok bool) {
	s, whole := strings.CutSuffix(string(b), "\n")
	f := strings.Fields(s)
	if !whole || len(f) != 4 || f[0] != "pid" || f[2] != "host" {
		return 0, "", false
	}
	pid, err := strconv.Atoi(f[1])
	return pid, f[3], err == nil && pid > 0
}

// inUse is the error for a folder another process holds.
func inUse(dir, path string, pid int, host, thisHost string) error {
	if host != thisHost {
		return fmt.Errorf("%s is in use by pid %d on host %s (lock %s); wait for it to finish, or remove the lock if that process is gone",
			dir, pid, host, path)
	}
	return fmt.Errorf("%s is in use by pid %d on host %s (lock %s); wait for it to finish", dir, pid, host, path)
}

// notALock is the error for a path that holds something other than a lock
// file: a symbolic link, a FIFO, a folder. It is the user's to remove;
// nothing is written through it.
func notALock(path, what string) error {
	return fmt.Errorf("the lock %s is %s; remove it and run again (a lock is a regular file pipelab writes)", path, what)
}

// fileKind names the type of a file that is not a regular file.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "of type " + m.Type().String()
}
