package sweep

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/results"
)

// asBuild makes the package stamp its records as the build named stamp
// for the rest of the test.
func asBuild(t *testing.T, stamp string) {
	t.Helper()
	saved := buildStamp
	buildStamp = func() string { return stamp }
	t.Cleanup(func() { buildStamp = saved })
}

// counted wraps a RunFunc and lists the ids of the runs it computed.
type counted struct {
	mu   sync.Mutex
	ids  []string
	exec RunFunc
}

func (c *counted) run(ctx context.Context, r experiments.Run) (*results.Tables, error) {
	c.mu.Lock()
	c.ids = append(c.ids, r.ID)
	c.mu.Unlock()
	return c.exec(ctx, r)
}

func (c *counted) ran() []string {
	slices.Sort(c.ids)
	return c.ids
}

// sweepAs sweeps runs into dir with exec, its progress into a buffer.
func sweepAs(t *testing.T, dir string, runs []experiments.Run, exec RunFunc) (Summary, string) {
	t.Helper()
	var progress bytes.Buffer
	sum, err := (&Runner{Dir: dir, Jobs: 2, Execute: exec, Progress: &progress}).Sweep(context.Background(), runs)
	if err != nil {
		t.Fatal(err)
	}
	return sum, progress.String()
}

func decodeRecord(t *testing.T, dir string, r experiments.Run) record {
	t.Helper()
	rec, err := readRecord(filepath.Join(dir, "runs", r.ID+".gob"))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestResumeDistrustsAnotherBuild: records written by build A are not
// trusted by build B, which runs them again and replaces them with its
// own; B's records are then trusted by B.
func TestResumeDistrustsAnotherBuild(t *testing.T) {
	runs := tinyRuns(t)[:6]
	dir := t.TempDir()
	asBuild(t, "build A")
	if sum, _ := sweepAs(t, dir, runs, fakeRun); sum.Ran != 6 {
		t.Fatalf("first sweep ran %d runs", sum.Ran)
	}
	for _, r := range runs {
		if rec := decodeRecord(t, dir, r); rec.Build != "build A" || rec.Format != recordFormat || rec.Name != r.Name {
			t.Fatalf("record of %s: build %q format %d name %q", r.ID, rec.Build, rec.Format, rec.Name)
		}
	}

	// Build B computes other losses, so a replaced record shows.
	asBuild(t, "build B")
	changed := &counted{exec: func(ctx context.Context, r experiments.Run) (*results.Tables, error) {
		out, err := fakeRun(ctx, r)
		out.Runs[0].FinalLoss += 1
		return out, err
	}}
	sum, progress := sweepAs(t, dir, runs, changed.run)
	if sum.Resumed != 0 || sum.Ran != 6 || sum.Foreign != 6 || sum.Unreadable != 0 || len(changed.ran()) != 6 {
		t.Errorf("build B: %+v, computed %d runs; want all 6 run again", sum, len(changed.ids))
	}
	if !strings.Contains(progress, "rerunning 6 runs recorded by another build of pipelab\n") {
		t.Errorf("progress %q does not say that 6 runs are run again", progress)
	}
	got := readDeterministic(t, dir)
	for _, row := range got.Runs {
		want, _ := fakeRun(context.Background(), runByID(t, runs, row.RunID))
		if row.FinalLoss != want.Runs[0].FinalLoss+1 {
			t.Errorf("run %s: final loss %g is not build B's %g", row.RunID, row.FinalLoss, want.Runs[0].FinalLoss+1)
		}
	}
	for _, r := range runs {
		if rec := decodeRecord(t, dir, r); rec.Build != "build B" {
			t.Errorf("record of %s is stamped %q after build B reran it", r.ID, rec.Build)
		}
	}

	// The same build again trusts every record.
	again := &counted{exec: fakeRun}
	sum, progress = sweepAs(t, dir, runs, again.run)
	if sum.Resumed != 6 || sum.Ran != 0 || sum.Foreign != 0 || len(again.ids) != 0 || strings.Contains(progress, "rerunning") {
		t.Errorf("build B again: %+v, computed %v, progress %q; want all 6 resumed", sum, again.ids, progress)
	}
}

func runByID(t *testing.T, runs []experiments.Run, id string) experiments.Run {
	t.Helper()
	for _, r := range runs {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no run %s", id)
	return experiments.Run{}
}

// TestResumeRerunsUnreadableRecords: a truncated, an empty, a garbled
// record and one that names another run are run again, as are a record
// stamped by another build and one in the format of before stamps (no
// Format, no Build); the untouched record is resumed, and the tables equal
// an uninterrupted sweep's.
func TestResumeRerunsUnreadableRecords(t *testing.T) {
	runs := tinyRuns(t)[:7]
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "damaged")
	asBuild(t, "build A")
	sweepAs(t, dir, runs, fakeRun)
	path := func(i int) string { return filepath.Join(dir, "runs", runs[i].ID+".gob") }
	whole, err := os.ReadFile(path(0))
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(path(6))
	if err != nil {
		t.Fatal(err)
	}
	writeFile := func(i int, b []byte) {
		if err := os.WriteFile(path(i), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeGob := func(i int, v any) {
		var b bytes.Buffer
		if err := gob.NewEncoder(&b).Encode(v); err != nil {
			t.Fatal(err)
		}
		writeFile(i, b.Bytes())
	}
	writeFile(0, whole[:len(whole)/2])              // truncated
	writeFile(1, nil)                               // empty
	writeFile(2, []byte("not a gob stream at all")) // garbled
	writeFile(3, other)                             // run 6's record under run 3's id
	out, _ := fakeRun(context.Background(), runs[4])
	writeGob(4, record{Format: recordFormat, Build: "build Z", Name: runs[4].Name, Output: *out})
	out, _ = fakeRun(context.Background(), runs[5])
	writeGob(5, struct { // format 1: the record before stamps
		Name   string
		Output results.Tables
	}{runs[5].Name, *out})

	c := &counted{exec: fakeRun}
	sum, progress := sweepAs(t, dir, runs, c.run)
	want := []string{runs[0].ID, runs[1].ID, runs[2].ID, runs[3].ID, runs[4].ID, runs[5].ID}
	slices.Sort(want)
	if got := c.ran(); !slices.Equal(got, want) {
		t.Errorf("ran %v, want runs 0 to 5 %v", got, want)
	}
	if sum.Resumed != 1 || sum.Ran != 6 || sum.Foreign != 2 || sum.Unreadable != 4 {
		t.Errorf("summary %+v, want 1 resumed, 6 ran, 2 foreign, 4 unreadable", sum)
	}
	if line := "rerunning 2 runs recorded by another build of pipelab and 4 whose record could not be read\n"; !strings.Contains(progress, line) {
		t.Errorf("progress %q does not contain %q", progress, line)
	}
	for _, r := range runs {
		if rec := decodeRecord(t, dir, r); rec.Build != "build A" || rec.Name != r.Name {
			t.Errorf("record of %s: build %q name %q", r.ID, rec.Build, rec.Name)
		}
	}
	fresh := filepath.Join(tmp, "fresh")
	sweepAs(t, fresh, runs, fakeRun)
	if !reflect.DeepEqual(readDeterministic(t, dir), readDeterministic(t, fresh)) {
		t.Error("the repaired sweep's tables differ from an uninterrupted sweep's")
	}
}

func TestRerunLine(t *testing.T) {
	for _, tc := range []struct {
		foreign, unreadable int
		want                string
	}{
		{1, 0, "rerunning 1 run recorded by another build of pipelab"},
		{0, 1, "rerunning 1 run whose record could not be read"},
		{0, 3, "rerunning 3 runs whose record could not be read"},
		{5, 2, "rerunning 5 runs recorded by another build of pipelab and 2 whose record could not be read"},
	} {
		if got := rerunLine(tc.foreign, tc.unreadable); got != tc.want {
			t.Errorf("%d, %d: %q, want %q", tc.foreign, tc.unreadable, got, tc.want)
		}
	}
}

// TestStampOf: a clean VCS revision or a released version vouches for the
// code; otherwise the executable's hash tells builds apart.
func TestStampOf(t *testing.T) {
	hash := func() (string, error) { return "H", nil }
	noHash := func() (string, error) {
		t.Error("hashed the executable of a build whose revision vouches for it")
		return "", errors.New("not wanted")
	}
	info := func(version string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "pipelab", Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	clean := stampOf(info("(devel)", "GOARCH", "amd64", "vcs.revision", "abc", "vcs.time", "2026-01-01T00:00:00Z", "vcs.modified", "false"), noHash)
	if want := "go1.26.0 pipelab@(devel) GOARCH=amd64 vcs.revision=abc vcs.modified=false"; clean != want {
		t.Errorf("clean build: %q, want %q", clean, want)
	}
	otherRev := stampOf(info("(devel)", "GOARCH", "amd64", "vcs.revision", "abd", "vcs.modified", "false"), noHash)
	otherArch := stampOf(info("(devel)", "GOARCH", "arm64", "vcs.revision", "abc", "vcs.modified", "false"), noHash)
	if otherRev == clean || otherArch == clean {
		t.Errorf("another revision or architecture shares the stamp %q", clean)
	}
	if got := stampOf(info("v1.2.0"), noHash); got != "go1.26.0 pipelab@v1.2.0" {
		t.Errorf("released module: %q", got)
	}
	for name, bi := range map[string]*debug.BuildInfo{
		"modified tree":   info("(devel)", "vcs.revision", "abc", "vcs.modified", "true"),
		"dirty version":   info("v0.0.0-20260101000000-abcdef123456+dirty"),
		"no VCS (go run)": info("(devel)", "GOARCH", "amd64"),
		"no build info":   nil,
	} {
		if got := stampOf(bi, hash); !strings.HasSuffix(got, " executable-sha256=H") && got != "executable-sha256=H" {
			t.Errorf("%s: stamp %q carries no executable hash", name, got)
		}
	}
	failing := stampOf(nil, func() (string, error) { return "", errors.New("gone") })
	if failing != "executable-sha256=unknown (gone)" {
		t.Errorf("unreadable executable: %q", failing)
	}
}

// TestBuildStampOfThisBinary: the test binary carries no VCS revision, so
// its stamp ends with its own SHA-256, computed here from the file.
func TestBuildStampOfThisBinary(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information in the test binary")
	}
	stamp := buildStamp()
	if !strings.HasPrefix(stamp, info.GoVersion+" ") || stamp != buildStamp() {
		t.Errorf("stamp %q does not start with %s or changes between calls", stamp, info.GoVersion)
	}
	vouched := false
	for _, s := range info.Settings {
		vouched = vouched || (s.Key == "vcs.modified" && s.Value == "false")
	}
	if hashed := strings.HasSuffix(stamp, " executable-sha256="+hex.EncodeToString(sum[:])); hashed == vouched {
		t.Errorf("stamp %q: executable hash present %v, clean VCS revision %v", stamp, hashed, vouched)
	}
}
