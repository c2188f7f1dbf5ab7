package experiments

import (
	"fmt"
	"strings"

	"github.com/pipelab/pipelab/objectives"
)

// ObjectiveDesc describes an objective by the traits callers test: its
// name and the keys and data it takes.
type ObjectiveDesc struct {
	// Name is the name of specs, flags and the tables' objective column.
	Name string
	// LM is a character language model read from a corpus, with a
	// held-out split (objectives/charlm), not N×D data.
	LM bool
	// Noise says a spec may give gradient noise σ (key noise);
	// DefaultNoise is σ when it gives none.
	Noise        bool
	DefaultNoise float64
	// L2 says the objective takes an L2 penalty (key l2).
	L2 bool
}

// objectiveTable is every objective NewObjective builds, in the order of
// KnownObjectives.
var objectiveTable = []ObjectiveDesc{
	{Name: "quadratic", Noise: true},
	{Name: "tridiagonal"},
	{Name: "logistic", Noise: true, DefaultNoise: objectives.DefaultNoise, L2: true},
	{Name: "charlm", LM: true},
}

// ObjectiveNamed returns the descriptor of the objective called name, or
// an error naming the known objectives.
func ObjectiveNamed(name string) (ObjectiveDesc, error) {
	for _, d := range objectiveTable {
		if d.Name == name {
			return d, nil
		}
	}
	return ObjectiveDesc{}, fmt.Errorf("unknown objective %q (known: %s)", name, strings.Join(KnownObjectives, ", "))
}

// objectiveOf is the descriptor of the objective called name; a name no
// objective has, which validation refuses first, gets the zero
// descriptor, which has no trait.
func objectiveOf(name string) ObjectiveDesc {
	d, _ := ObjectiveNamed(name)
	return d
}

func objectiveNames() []string {
	names := make([]string, len(objectiveTable))
	for i, d := range objectiveTable {
		names[i] = d.Name
	}
	return names
}
