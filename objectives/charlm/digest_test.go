package charlm_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDigestSameInEveryBuild builds testdata/digest (the SHA-256 of
// charlm's losses and gradients over three SGD steps on the shipped text
// and of internal/vec's kernels on seeded inputs) as the default build,
// with -tags purego (no assembly) and with GOAMD64=v3 (the compiler may
// fuse a*b+c), runs each and checks that the three digests are equal: the
// kernels' contract (internal/vec.Features) says the bits do not depend on
// the build. The go tool must be on PATH.
func TestDigestSameInEveryBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the digest program three times")
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is not on PATH: %v", err)
	}
	builds := []struct {
		name, goamd64 string
		args          []string
	}{
		{"default", "v1", nil},
		{"purego", "v1", []string{"-tags", "purego"}},
		{"GOAMD64=v3", "v3", nil},
	}
	dir := t.TempDir()
	outputs := make([][]string, len(builds))
	for i, b := range builds {
		exe := filepath.Join(dir, "digest"+string(rune('0'+i)))
		args := append([]string{"build", "-o", exe}, b.args...)
		cmd := exec.Command(gotool, append(args, "./testdata/digest")...)
		cmd.Env = append(os.Environ(), "GOAMD64="+b.goamd64)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: go %s: %v\n%s", b.name, strings.Join(cmd.Args[1:], " "), err, out)
		}
		out, err := exec.Command(exe).Output()
		if err != nil {
			t.Fatalf("%s: running the digest: %v", b.name, err)
		}
		outputs[i] = strings.Fields(string(out))
		t.Logf("%s: %s", b.name, out)
		if len(outputs[i]) != 4 {
			t.Fatalf("%s: digest output %q, want a digest and three switches", b.name, out)
		}
	}
	if got := strings.Join(outputs[1][1:], " "); got != "avx=false avx2fma=false avx512=false" {
		t.Errorf("purego build: switches %s, want all off (no assembly)", got)
	}
	for i := 1; i < len(builds); i++ {
		if outputs[i][0] != outputs[0][0] {
			t.Errorf("%s digest %s, default build %s", builds[i].name, outputs[i][0], outputs[0][0])
		}
	}
}
