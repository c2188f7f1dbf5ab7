package sweep

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// lockChildEnv makes the test binary, run as TestLockTakeoverChild, a
// process that takes the lock of the folder the variable names: it says
// "ready", waits for a byte on stdin, takes the lock and says "locked" and
// marks the folder as written by it (a file writer-PID), or says "refused:
// ERROR"; a holder keeps the lock until stdin closes.
const lockChildEnv = "PIPELAB_EXPERIMENTS_LOCK_CHILD"

func TestLockTakeoverChild(t *testing.T) {
	dir := os.Getenv(lockChildEnv)
	if dir == "" {
		return
	}
	in := bufio.NewReader(os.Stdin)
	fmt.Println("ready")
	if _, err := in.ReadByte(); err != nil {
		os.Exit(1)
	}
	l, err := lockFolder(dir)
	if err != nil {
		fmt.Println("refused: " + strings.ReplaceAll(err.Error(), "\n", " "))
		os.Exit(0)
	}
	if os.Getenv(lockChildEnv+"_DIE") != "" {
		fmt.Println("locked")
		select {} // killed by the test while it holds the lock
	}
	marker := filepath.Join(dir, "writer-"+strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		fmt.Println("refused: " + err.Error())
		os.Exit(1)
	}
	fmt.Println("locked")
	io.Copy(io.Discard, in) // hold the lock until the test closes stdin
	os.Remove(marker)
	l.unlock()
	os.Exit(0)
}

// lockChild is a running TestLockTakeoverChild.
type lockChild struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

// startLockChild starts a child and waits for its "ready". It returns
// errors rather than failing the test, as the test's workers call it off
// the test's goroutine.
func startLockChild(dir string, env ...string) (*lockChild, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockTakeoverChild$")
	cmd.Env = append(append(os.Environ(), lockChildEnv+"="+dir), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &lockChild{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	if line := c.line(); line != "ready" {
		c.cmd.Process.Kill()
		c.cmd.Wait()
		return nil, fmt.Errorf("lock child said %q, want ready", line)
	}
	return c, nil
}

func (c *lockChild) line() string {
	s, _ := c.out.ReadString('\n')
	return strings.TrimSpace(s)
}

// staleLock leaves in dir the lock of a process of this host that was
// killed while it held it (SIGKILL: no chance to remove it).
func staleLock(t *testing.T, dir string) []byte {
	t.Helper()
	c, err := startLockChild(dir, lockChildEnv+"_DIE=1")
	if err != nil {
		t.Fatal(err)
	}
	c.stdin.Write([]byte{1})
	if line := c.line(); line != "locked" {
		t.Fatalf("the child to be killed said %q", line)
	}
	c.cmd.Process.Kill()
	c.cmd.Wait()
	b, err := os.ReadFile(filepath.Join(dir, LockFile))
	if err != nil {
		t.Fatalf("the killed holder left no lock: %v", err)
	}
	return b
}

// TestStaleLockTakeoverHasOneWriter: two processes started together
// against the stale lock of a killed process, hundreds of times over; each
// time exactly one takes the folder over and marks it, and the other is
// refused with an error naming the winner's pid (never one saying the lock
// names no holder). Issue 27 saw both write about once in 120 pairs.
func TestStaleLockTakeoverHasOneWriter(t *testing.T) {
	pairs, workers := 200, 4
	if testing.Short() {
		pairs = 40
	}
	base := t.TempDir()
	var mu sync.Mutex
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for w := range workers {
		dir := filepath.Join(base, strconv.Itoa(w))
		stale := staleLock(t, dir)
		wg.Go(func() {
			for range pairs / workers {
				if err := os.WriteFile(filepath.Join(dir, LockFile), stale, 0o644); err != nil {
					fail("%v", err)
					return
				}
				takeOverTogether(dir, fail)
			}
		})
	}
	wg.Wait()
	for i, f := range failures {
		if i == 10 {
			t.Errorf("... and %d more", len(failures)-10)
			break
		}
		t.Error(f)
	}
}

// takeOverTogether starts two children, lets them take dir's lock at once
// and checks that exactly one did.
func takeOverTogether(dir string, fail func(string, ...any)) {
	a, err := startLockChild(dir)
	if err != nil {
		fail("%v", err)
		return
	}
	b, err := startLockChild(dir)
	if err != nil {
		a.stdin.Close()
		a.cmd.Wait()
		fail("%v", err)
		return
	}
	a.stdin.Write([]byte{1})
	b.stdin.Write([]byte{1})
	la, lb := a.line(), b.line()
	markers, _ := filepath.Glob(filepath.Join(dir, "writer-*"))
	winner, loser, said := a, b, lb
	if lb == "locked" {
		winner, loser, said = b, a, la
	}
	switch {
	case la == "locked" && lb == "locked":
		fail("both pids %d and %d took the stale lock over (%d writers)", a.cmd.Process.Pid, b.cmd.Process.Pid, len(markers))
	case la != "locked" && lb != "locked":
		fail("neither took the stale lock over: %q, %q", la, lb)
	case len(markers) != 1:
		fail("%d writers in the folder, want 1", len(markers))
	case !strings.Contains(said, "in use by pid "+strconv.Itoa(winner.cmd.Process.Pid)):
		fail("the loser (pid %d) said %q, want the winner's pid %d named", loser.cmd.Process.Pid, said, winner.cmd.Process.Pid)
	}
	a.stdin.Close()
	b.stdin.Close()
	a.cmd.Wait()
	b.cmd.Wait()
}
