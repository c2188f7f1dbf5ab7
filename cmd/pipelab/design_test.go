package main

import (
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// thirdParty are the names docs/design.md gives the module's dependencies
// in its imports column, by import path prefix.
var thirdParty = map[string]string{
	"github.com/apache/arrow-go/": "arrow-go", "gonum.org/v1/plot": "gonum/plot", "gonum.org/v1/gonum": "gonum",
	"gopkg.in/yaml.v3": "yaml.v3", "golang.org/x/sync": "x/sync", "golang.org/x/sys": "x/sys",
}

// The imports column of docs/design.md's package table is the code's:
// for each package row, the module's packages and the dependencies its
// non-test files import (go/build), "stdlib only" for none; cmd/pipelab's
// is "everything".
func TestDesignImportsColumn(t *testing.T) {
	b, err := os.ReadFile("../../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z/]+)` \\|.*\\| ([^|]*) \\|$")
	rows := row.FindAllStringSubmatch(string(b), -1)
	if len(rows) < 15 {
		t.Fatalf("%d package rows found in docs/design.md", len(rows))
	}
	const module = "github.com/pipelab/pipelab/"
	for _, r := range rows {
		pkg, column := r[1], strings.TrimSpace(r[2])
		if pkg == "cmd/pipelab" {
			continue
		}
		bp, err := build.ImportDir(filepath.Join("../..", pkg), 0)
		if err != nil {
			t.Errorf("%s: %v", pkg, err)
			continue
		}
		var want []string
		for _, imp := range bp.Imports {
			if rest, ok := strings.CutPrefix(imp, module); ok {
				want = append(want, rest)
				continue
			}
			for prefix, name := range thirdParty {
				if strings.HasPrefix(imp, prefix) && !slices.Contains(want, name) {
					want = append(want, name)
				}
			}
		}
		var got []string
		if column != "stdlib only" {
			for _, f := range strings.Split(column, ",") {
				got = append(got, strings.TrimSpace(f))
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("docs/design.md: %s imports %q, the code %q", pkg, got, want)
		}
	}
}

// The library's front door stays Arrow-free, so that the explorer builds
// small for WebAssembly: no package request or explorer imports, directly
// or through the module's packages, imports Arrow (go/build's import
// lists, walked through the module; `go list -deps ./request ./explorer |
// grep -c apache/arrow` prints 0).
func TestFrontDoorHasNoArrow(t *testing.T) {
	const module = "github.com/pipelab/pipelab/"
	seen := map[string]string{} // package -> the package that imports it
	queue := []string{"request", "explorer"}
	for _, p := range queue {
		seen[p] = ""
	}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		bp, err := build.ImportDir(filepath.Join("../..", pkg), 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, imp := range bp.Imports {
			if strings.Contains(imp, "apache/arrow") {
				chain := pkg
				for p := seen[pkg]; p != ""; p = seen[p] {
					chain = p + " → " + chain
				}
				t.Errorf("%s imports %s", chain, imp)
			}
			if rest, ok := strings.CutPrefix(imp, module); ok {
				if _, done := seen[rest]; !done {
					seen[rest] = pkg
					queue = append(queue, rest)
				}
			}
		}
	}
}
