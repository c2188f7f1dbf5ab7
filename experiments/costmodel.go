package experiments

import (
	"fmt"
	"strings"
)

// CostModelDesc describes a cost model (CostSpec.CostModel) by the traits
// callers test.
type CostModelDesc struct {
	// Name is the name of the key cost_model and the tables' cost_model
	// column.
	Name string
	// Unit is unit time: every forward and backward one step
	// (cost.Unit), so a time budget counts steps.
	Unit bool
	// GPU times stages from a GPU preset or hardware file
	// (CostSpec.GPUConfig), with its memory check and keys.
	GPU bool
	// Spec says a spec may name it; the others only Go callers (the
	// command line) set, a spec having no key for their times.
	Spec bool
}

// costModelTable is every cost model CostSpec.Model builds.
var costModelTable = []CostModelDesc{
	{Name: "unit", Unit: true, Spec: true},
	{Name: "gpu", GPU: true, Spec: true},
	{Name: ExplicitCost},
	{Name: MeasuredCost},
}

// CostModelNamed returns the descriptor of the cost model called name
// ("" is unit time, a CostSpec's zero value), or an error naming the
// known cost models.
func CostModelNamed(name string) (CostModelDesc, error) {
	if name == "" {
		name = "unit"
	}
	for _, d := range costModelTable {
		if d.Name == name {
			return d, nil
		}
	}
	names := make([]string, len(costModelTable))
	for i, d := range costModelTable {
		names[i] = d.Name
	}
	return CostModelDesc{}, fmt.Errorf("unknown cost model %q (known: %s)", name, strings.Join(names, ", "))
}

// desc is the descriptor of c's cost model; a name no cost model has,
// which validation refuses first, gets the zero descriptor, which has no
// trait.
func (c CostSpec) desc() CostModelDesc {
	d, _ := CostModelNamed(c.CostModel)
	return d
}

// specCostModels are the cost models a spec may name.
func specCostModels() []string {
	var names []string
	for _, d := range costModelTable {
		if d.Spec {
			names = append(names, d.Name)
		}
	}
	return names
}
