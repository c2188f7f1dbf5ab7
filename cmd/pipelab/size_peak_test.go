//go:build linux && sizecheck

// The size guards against the kernel's peak: 56 s of the command line's
// largest schedules and simulations, so it is built only with the tag
// sizecheck (make check-size; CI runs it), and make test neither runs
// nor skips it.

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/tune"
)

// peakLaunchEnv, when set, makes the test binary a launcher (init below):
// it runs os.Args[1:] as a command, waits, and prints the peak resident
// set of that child (getrusage's RUSAGE_CHILDREN ru_maxrss, kilobytes on
// Linux). A process started straight from the test would count the test
// process's own resident set too: Go starts children with vfork, and Linux
// carries the memory of the shared address space into the child's
// ru_maxrss at exec.
const peakLaunchEnv = "PIPELAB_TEST_PEAK_LAUNCH"

func init() {
	if os.Getenv(peakLaunchEnv) == "" {
		return
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	var ru syscall.Rusage
	if rerr := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); rerr != nil {
		fmt.Fprintln(os.Stderr, rerr)
		os.Exit(3)
	}
	fmt.Println(ru.Maxrss)
	if err != nil {
		os.Exit(cmd.ProcessState.ExitCode())
	}
	os.Exit(0)
}

// peakBytes runs the built command with args through the launcher and
// returns the peak resident set of its process, as the kernel counts it,
// the memory the guards protect. A command expected to refuse its input
// (fails) may exit 2.
func peakBytes(t *testing.T, bin string, fails bool, args ...string) float64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{bin}, append(args, "--max-memory", "100G")...)...)
	cmd.Env = append(os.Environ(), peakLaunchEnv+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && !(fails && cmd.ProcessState.ExitCode() == 2) {
		t.Fatalf("pipelab %s: %v\n%.300s", strings.Join(args, " "), err, stderr.String())
	}
	kb, perr := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if perr != nil {
		t.Fatalf("pipelab %s: the launcher printed %q: %v", strings.Join(args, " "), out, perr)
	}
	return kb * 1024
}

// peakCase is one guarded piece of work: the command line and the
// estimate its guard holds it to.
type peakCase struct {
	name     string
	args     []string
	estimate float64
	fails    bool // the input is refused (exit 2) after it is read
}

// TestSizeEstimatesCoverThePeak runs each guarded command on every family
// (zb-auto included) at two shapes, and the schedule-file reader on two
// files, and checks that the guard's estimate is at least the peak
// resident set the process reached above that of the same command on a
// 2 × 2 table (the runtime and the binary, which the estimates leave out).
// The estimates are what the guards compute (experiments.ShapeBytes,
// pipeline.CSVReadBytes); the peaks are the kernel's count, so a guard
// that admits work beyond its limit fails here (issue 39: interleaved-zb
// and hanayo passed --max-memory 500M and exceeded it).
func TestSizeEstimatesCoverThePeak(t *testing.T) {
	bin := buildPipelab(t)
	shapes := [][2]int{{8, 4000}, {16, 8000}}
	families := append(pipeline.Families(), pipeline.Family{Name: tune.ZBAutoFamily})
	var cases []peakCase
	shapeBytes := func(family string, sh pipeline.Shape, cellBytes float64) float64 {
		b, err := experiments.ShapeBytes(family, sh, cellBytes)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, s := range shapes {
		p, m := s[0], s[1]
		for _, f := range families {
			sh := pipeline.Shape{Ranks: p, Microbatches: m}
			shape := []string{"--kind", f.Name, "--ranks", strconv.Itoa(p), "--microbatches", strconv.Itoa(m)}
			switch f.Name {
			case "pipedream":
				shape[4] = "--total-microbatches"
			case "localsgd":
				shape[4] = "--total-microbatches"
				shape = append(shape, "--local-steps", "4")
				sh.LocalSteps = 4
			}
			for _, format := range []string{"text", "csv"} {
				cases = append(cases, peakCase{fmt.Sprintf("schedule --format %s %s %d×%d", format, f.Name, p, m),
					append([]string{"schedule", "--format", format}, shape...), shapeBytes(f.Name, sh, experiments.ScheduleCellBytes), false})
			}
			if f.Name != "pipedream" && f.Name != "localsgd" {
				cases = append(cases, peakCase{fmt.Sprintf("simulate %s %d×%d", f.Name, p, m),
					append([]string{"simulate"}, shape...), shapeBytes(f.Name, sh, experiments.SimulateCellBytes), false})
			}
		}
		compare := 0.0
		for _, f := range families {
			if f.Name == "pipedream" || f.Name == "localsgd" {
				continue
			}
			compare = max(compare, shapeBytes(f.Name, experiments.ComparisonShape(p, m, 0), experiments.CompareCellBytes))
		}
		cases = append(cases, peakCase{fmt.Sprintf("compare %d×%d", p, m),
			[]string{"compare", "--ranks", strconv.Itoa(p), "--microbatches", strconv.Itoa(m)}, compare, false})
		n := m * 4
		cases = append(cases, peakCase{fmt.Sprintf("delays pipedream %d×%d", p, n),
			[]string{"delays", "--kind", "pipedream", "--ranks", strconv.Itoa(p), "--total-microbatches", strconv.Itoa(n)},
			shapeBytes("pipedream", pipeline.Shape{Ranks: p, Microbatches: n}, experiments.ReplayCellBytes), false})
	}
	dir := t.TempDir()
	for i, rows := range []int{1, 8} {
		// Empty cells, one byte each, take the most memory a byte: the
		// issue's 30 MB of commas peaked at 120 B a byte.
		path := filepath.Join(dir, fmt.Sprintf("commas-%d.csv", rows))
		line := "0F0" + strings.Repeat(",", 8_000_000/rows) + "\n"
		if err := os.WriteFile(path, []byte(strings.Repeat(line, rows)), 0o644); err != nil {
			t.Fatal(err)
		}
		size := float64(len(line) * rows)
		cases = append(cases, peakCase{fmt.Sprintf("check, %d rows of commas", rows), []string{"check", path}, size * pipeline.CSVReadBytes, true})
		full := filepath.Join(dir, fmt.Sprintf("zbv-%d.csv", i))
		out, err := exec.Command(bin, "schedule", "--kind", "zb-v", "--ranks", "16", "--microbatches", strconv.Itoa(2000*(i+1)), "--format", "csv").Output()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, out, 0o644); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, peakCase{fmt.Sprintf("simulate --schedule, zb-v, %d bytes", len(out)), []string{"simulate", "--schedule", full},
			float64(len(out)) * pipeline.CSVReadBytes, false})
	}
	base := map[string]float64{}
	for _, c := range cases {
		cmd := c.args[0]
		if _, ok := base[cmd]; !ok {
			switch cmd {
			case "schedule", "simulate":
				base[cmd] = peakBytes(t, bin, false, cmd, "--kind", "1f1b", "--ranks", "2", "--microbatches", "2")
			case "compare":
				base[cmd] = peakBytes(t, bin, false, cmd, "--ranks", "2", "--microbatches", "2")
			case "delays":
				base[cmd] = peakBytes(t, bin, false, cmd, "--kind", "pipedream", "--ranks", "2", "--total-microbatches", "2")
			case "check":
				tiny := filepath.Join(dir, "tiny.csv")
				if err := os.WriteFile(tiny, []byte("0F0,0B0\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				base[cmd] = peakBytes(t, bin, false, cmd, tiny)
			}
		}
		peak := peakBytes(t, bin, c.fails, c.args...) - base[cmd]
		t.Logf("%-48s estimate %7.1f MB  peak %7.1f MB above %5.1f MB  ratio %.2f", c.name, c.estimate/1e6, peak/1e6, base[cmd]/1e6, c.estimate/peak)
		if c.estimate < peak {
			t.Errorf("%s: the guard's estimate %.1f MB is below the peak %.1f MB", c.name, c.estimate/1e6, peak/1e6)
		}
	}
}
