package experiments

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestExamplesMatchPresets: every example spec parses, in the current
// spelling of every key (no deprecation note), and those written
// out from a figure's full preset expand to exactly that preset's runs
// (ids are hashes of every parameter), so the examples stay true.
func TestExamplesMatchPresets(t *testing.T) {
	files, err := filepath.Glob("../examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	parsed := map[string][]Run{}
	for _, f := range append(files, "testdata/tiny.yaml") {
		s, err := ReadSpecFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parsed[filepath.Base(f)] = s.Expand()
	}
	tests := []struct {
		file, figure string
		spec         int // index among the figure's full specs
	}{
		{"scaling.yaml", "scaling", 0},
		{"pd-vs-rpd.yaml", "pd-vs-rpd", 0},
		{"pd-vs-localsgd-gpu.yaml", "pd-vs-localsgd-budget", 1},
		{"schedules.yaml", "schedules", 0},
		{"delays.yaml", "delays", 0},
		{"delay-profiles-quadratic.yaml", "delay-profiles", 2},
	}
	for _, tc := range tests {
		f, err := LookupFigure(tc.figure)
		if err != nil {
			t.Fatal(err)
		}
		specs, err := f.Presets(false)
		if err != nil {
			t.Fatal(err)
		}
		s := specs[tc.spec]
		if got, want := ids(parsed[tc.file]), ids(s.Expand()); !slices.Equal(got, want) {
			t.Errorf("%s: %d runs differ from figure %s's %d", tc.file, len(got), tc.figure, len(want))
		}
	}
}

func ids(runs []Run) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.ID
	}
	slices.Sort(out)
	return out
}

// TestFiguresExpand: every preset, quick and full, validates and expands
// to distinct run ids.
func TestFiguresExpand(t *testing.T) {
	for _, f := range Figures() {
		for _, quick := range []bool{true, false} {
			runs, err := f.Runs(quick)
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) == 0 {
				t.Errorf("%s (quick %v): no runs", f.Name, quick)
			}
		}
	}
	if _, err := LookupFigure("nosuch"); err == nil {
		t.Error("LookupFigure accepted an unknown name")
	}
}
