package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeGoSnippetCompiles type-checks the README's "Use it from Go"
// snippet against the packages as they are: its imports and calls, wrapped
// in a function with ctx, go through go vet (by an overlay, so nothing is
// written into the tree), so a renamed field or function fails here. And
// each paragraph's fields must be ones its cited Example sets: Run's
// Microbatches (sync's M) once stood in the snippet where the Example set
// TotalMicrobatches (N), which compiles. The go tool must be on PATH.
func TestReadmeGoSnippetCompiles(t *testing.T) {
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is not on PATH: %v", err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Use it from Go\n")
	if !ok {
		t.Fatal(`README.md has no "## Use it from Go" section`)
	}
	_, block, ok := strings.Cut(section, "```go\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("the Go section has no ```go block")
	}
	imports, body, ok := strings.Cut(block, ")\n")
	if !ok || !strings.HasPrefix(imports, "import (") {
		t.Fatal("the snippet does not start with an import block")
	}
	// Each paragraph of the snippet names the Example that runs its calls;
	// every field it sets (Key:) must be set in that Example too.
	cites := regexp.MustCompile(`\((\w+)\.(Example\w+)\)`)
	keys := regexp.MustCompile(`\b([A-Z]\w*):`)
	checked := 0
	for _, para := range strings.Split(body, "\n\n") {
		ex := cites.FindStringSubmatch(para)
		if ex == nil {
			continue
		}
		checked++
		src := exampleSource(t, "../../"+importPath(imports, ex[1]), ex[2])
		if src == "" {
			t.Errorf("the snippet cites %s.%s, which does not exist", ex[1], ex[2])
			continue
		}
		for _, k := range keys.FindAllStringSubmatch(para, -1) {
			if !regexp.MustCompile(`\b` + k[1] + `:`).MatchString(src) {
				t.Errorf("the snippet's %s.%s paragraph sets %s, which %s does not:\n%s", ex[1], ex[2], k[1], ex[2], para)
			}
		}
	}
	if checked == 0 {
		t.Fatal("the snippet names no Example function")
	}
	src := "package main\n\n" + strings.Replace(imports, "import (", "import (\n\t\"context\"\n\t\"fmt\"", 1) + ")\n\n" +
		"func main() {\n\tctx := context.Background()\n\tvar err error\n" + body +
		"\t_, _, _ = ctx, err, fmt.Sprint()\n}\n"
	dir := t.TempDir()
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// docs/ holds no Go: the overlay makes the snippet a package there
	// for go vet alone (vet runs in the package's directory, so it must
	// exist).
	virtual, err := filepath.Abs("../../docs/readme_snippet.go")
	if err != nil {
		t.Fatal(err)
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{virtual: file}})
	ov := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gotool, "vet", "-overlay", ov, "./docs")
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the README's Go snippet does not compile against the packages:\n%s\n--- snippet as checked:\n%s", out, src)
	}
}

// exampleSource returns the source of the function name in the _test.go
// files of dir, or "".
func exampleSource(t *testing.T, dir, name string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, rest, ok := strings.Cut(string(b), "\nfunc "+name+"() {\n"); ok {
			fn, _, _ := strings.Cut(rest, "\n}\n")
			return fn
		}
	}
	return ""
}

// importPath finds the import of package name in an import block.
func importPath(imports, name string) string {
	for _, line := range strings.Split(imports, "\n") {
		p := strings.Trim(strings.TrimSpace(line), `"`)
		if strings.HasSuffix(p, "/"+name) {
			return strings.TrimPrefix(p, "github.com/pipelab/pipelab/")
		}
	}
	return name
}
