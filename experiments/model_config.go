package experiments

import (
	"path/filepath"
	"strings"
)

// resolve takes a relative model_config from the directory of the spec
// file that names it.
func (c *CostSpec) resolve(specFile string) {
	if c.ModelConfig == "" || filepath.IsAbs(c.ModelConfig) {
		c.modelConfigPath = c.ModelConfig
		return
	}
	c.modelConfigPath = filepath.Join(filepath.Dir(specFile), c.ModelConfig)
}

// configPath is the model_config file to read.
func (c CostSpec) configPath() string {
	if c.modelConfigPath != "" {
		return c.modelConfigPath
	}
	return c.ModelConfig
}

// modelLabel names the model in run and schedule ids: the preset, or the
// model_config path as the spec writes it, with "/" and "_" turned into
// "-" (schedule ids split on "_").
func (c CostSpec) modelLabel() string {
	if c.ModelConfig == "" {
		return c.Preset
	}
	return strings.NewReplacer("/", "-", "_", "-", `\`, "-").Replace(c.ModelConfig)
}
