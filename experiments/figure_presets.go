package experiments

import (
	"embed"
	"fmt"
	"path"
)

// presetFiles are the figures' specs, one YAML stream a figure and size:
// figures/NAME.yaml at the full size and figures/quick/NAME.yaml at the
// quick size, each commented for a user who copies it
// (TestPresetFiles: exactly one file per figure and size).
//
//go:embed figures/*.yaml figures/quick/*.yaml
var presetFiles embed.FS

// presetDir is where the files are in the repository, for the paths that
// errors name.
const presetDir = "experiments"

// PresetPath is the path of the figure's preset file at the quick or full
// size in the repository (experiments/figures/NAME.yaml,
// experiments/figures/quick/NAME.yaml).
func (f Figure) PresetPath(quick bool) string {
	return path.Join(presetDir, f.presetName(quick))
}

// presetName is the file's name in presetFiles.
func (f Figure) presetName(quick bool) string {
	if quick {
		return path.Join("figures", "quick", f.Name+".yaml")
	}
	return path.Join("figures", f.Name+".yaml")
}

// PresetFile returns the figure's preset file at the quick or full size,
// as shipped: a YAML stream of specs with its comments, which "pipelab
// reproduce FIGURE --print-spec" prints and "pipelab sweep" runs into the
// figure's tables.
func (f Figure) PresetFile(quick bool) ([]byte, error) {
	b, err := presetFiles.ReadFile(f.presetName(quick))
	if err != nil {
		return nil, fmt.Errorf("figure %s has no preset file %s", f.Name, f.PresetPath(quick))
	}
	return b, nil
}

// Presets returns the figure's specs at the quick or full size, read from
// its preset file (ParseSpecs: strictly, validated, an error naming the
// file's path and line).
func (f Figure) Presets(quick bool) ([]*Spec, error) {
	b, err := f.PresetFile(quick)
	if err != nil {
		return nil, err
	}
	return ParseSpecs(f.PresetPath(quick), b)
}
