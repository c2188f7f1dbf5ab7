package experiments

import (
	"embed"
	"path"
)

//go:embed figures/*.yaml figures/quick/*.yaml
var presetFiles embed.FS

// embeddedPresets parses the figure's embedded preset file (stage 1).
func (f Figure) embeddedPresets(quick bool) ([]*Spec, error) {
	name := path.Join("figures", f.Name+".yaml")
	if quick {
		name = path.Join("figures", "quick", f.Name+".yaml")
	}
	b, err := presetFiles.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return ParseSpecs(path.Join("experiments", name), b)
}
