package experiments

import (
	"path/filepath"
	"strings"
)

// resolve takes a relative model_config or hardware from the directory of
// the spec file that names it.
func (c *CostSpec) resolve(specFile string) {
	at := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(filepath.Dir(specFile), p)
	}
	c.modelConfigPath, c.hardwarePath = at(c.ModelConfig), at(c.Hardware)
}

// configPath is the model_config file to read.
func (c CostSpec) configPath() string {
	if c.modelConfigPath != "" {
		return c.modelConfigPath
	}
	return c.ModelConfig
}

// hardwareFile is the hardware file to read.
func (c CostSpec) hardwareFile() string {
	if c.hardwarePath != "" {
		return c.hardwarePath
	}
	return c.Hardware
}

// modelLabel names the model in run and schedule ids: the preset, or the
// model_config path as the spec writes it, with "/" and "_" turned into
// "-" (schedule ids split on "_").
func (c CostSpec) modelLabel() string {
	if c.ModelConfig == "" {
		return c.Preset
	}
	return idSafe(c.ModelConfig)
}

// deviceLabel names the GPU and link in run and schedule ids: the
// presets', or "hardware" and the file as the spec writes it.
func (c CostSpec) deviceLabel(sep string) string {
	if c.Hardware == "" {
		return c.GPU + sep + c.Link
	}
	return "hardware" + sep + idSafe(c.Hardware)
}

// presetColumns returns the model, GPU and link columns of a schedule
// priced with the GPU cost model: the presets' names, or the files the
// spec names (model_config, hardware) as it writes them.
func presetColumns(c CostSpec) (model, gpu, link string) {
	model = c.Preset
	if c.ModelConfig != "" {
		model = c.ModelConfig
	}
	if c.Hardware != "" {
		return model, c.Hardware, c.Hardware
	}
	return model, c.GPU, c.Link
}

// idSafe turns the "/" and "_" of a path into "-" (schedule ids split on
// "_").
func idSafe(path string) string {
	return strings.NewReplacer("/", "-", "_", "-", `\`, "-").Replace(path)
}
