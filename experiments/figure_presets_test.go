package experiments

import (
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPresetFiles: the package ships exactly one preset file per figure
// and size (figures/NAME.yaml, figures/quick/NAME.yaml; no stray file,
// none missing), and every one parses, validates and expands into runs
// with distinct ids. Each starts with a header comment naming the figure
// and its size, repeating its summary and saying how to sweep the file.
func TestPresetFiles(t *testing.T) {
	var want []string
	for _, f := range Figures() {
		want = append(want, f.presetName(false), f.presetName(true))
	}
	var got []string
	err := fs.WalkDir(presetFiles, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			got = append(got, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("embedded files %v, want one per figure and size: %v", got, want)
	}
	for _, f := range Figures() {
		for _, quick := range []bool{true, false} {
			size := "full"
			if quick {
				size = "quick"
			}
			runs, err := f.Runs(quick)
			if err != nil {
				t.Errorf("%s: %v", f.PresetPath(quick), err)
				continue
			}
			if len(runs) == 0 {
				t.Errorf("%s: no runs", f.PresetPath(quick))
			}
			b, err := f.PresetFile(quick)
			if err != nil {
				t.Fatal(err)
			}
			header := presetHeader(string(b))
			for _, s := range []string{"Figure " + f.Name + ", " + size + " size: " + f.Summary, "pipelab sweep FILE --out DIR"} {
				if !strings.Contains(header, s) {
					t.Errorf("%s: the header comment %q does not say %q", f.PresetPath(quick), header, s)
				}
			}
		}
	}
}

// presetHeader is a preset file's comment lines before its first "---",
// without the "#" and joined by spaces.
func presetHeader(src string) string {
	var words []string
	for l := range strings.SplitSeq(src, "\n") {
		if isMarker([]byte(l)) {
			break
		}
		words = append(words, strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "#"))...)
	}
	return strings.Join(words, " ")
}

// TestPresetErrors: a figure without a file is an error naming the path
// it looked for, not a panic, and an error in a preset file names the
// file's path in the repository and its line, as a user's copy's would.
func TestPresetErrors(t *testing.T) {
	_, err := Figure{Name: "nosuch"}.Presets(true)
	if err == nil || !strings.Contains(err.Error(), "experiments/figures/quick/nosuch.yaml") {
		t.Errorf("got %v, want an error naming experiments/figures/quick/nosuch.yaml", err)
	}
	f, err := LookupFigure("delays")
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.PresetFile(true)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "stages:") })
	if i < 0 {
		t.Fatal("the quick delays preset has no stages line")
	}
	lines[i] = strings.Replace(lines[i], "stages:", "stagez:", 1)
	_, err = ParseSpecs(f.PresetPath(true), []byte(strings.Join(lines, "\n")))
	if want := "experiments/figures/quick/delays.yaml:" + strconv.Itoa(i+1) + ":"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an error at %s", err, want)
	}
}

// presetSpec returns the spec named name of the figure's preset at the
// quick or full size.
func presetSpec(t testing.TB, f Figure, quick bool, name string) *Spec {
	t.Helper()
	specs, err := f.Presets(quick)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("%s has no spec %s", f.PresetPath(quick), name)
	return nil
}

// TestPresetSummaries: the S, K and optimizers that the staleness-law and
// optimizers-under-delay summaries state are those of their full preset
// files.
func TestPresetSummaries(t *testing.T) {
	law := presetSpec(t, figureStalenessLaw, false, "staleness-law-lm")
	if !slices.Equal(law.Stages, lawLMStages) || !slices.Equal(law.TotalMicrobatches, []int{lawLMMicrobatches}) {
		t.Errorf("the law LM runs S = %v, K = %v; its summary says %v, %d", law.Stages, law.TotalMicrobatches, lawLMStages, lawLMMicrobatches)
	}
	opt := presetSpec(t, figureOptimizersUnderDelay, false, "optimizers-under-delay")
	if !slices.Equal(opt.Stages, optimizersStages) || !slices.Equal(opt.TotalMicrobatches, []int{optimizersMicrobatches}) {
		t.Errorf("optimizers-under-delay runs S = %v, K = %v; its summary says %v, %d", opt.Stages, opt.TotalMicrobatches, optimizersStages, optimizersMicrobatches)
	}
	var names, labels []string
	for _, m := range opt.Methods {
		if !slices.Contains(names, m.Optimizer.Name) {
			names = append(names, m.Optimizer.Name)
		}
	}
	for _, l := range optimizersLabels {
		labels = append(labels, strings.ToLower(l))
	}
	if !slices.Equal(names, labels) {
		t.Errorf("optimizers-under-delay runs %v; its summary says %v", names, optimizersLabels)
	}
}
