package pipeline

import (
	"fmt"
	"slices"
	"strings"
)

// Shape is what a generator is asked for. Zero fields take the family's
// default where it has one.
type Shape struct {
	// Ranks is the number of pipeline ranks (devices), P.
	Ranks int
	// Microbatches is the number of microbatches of one iteration, M (N in
	// the PipeDream paper).
	Microbatches int
	// Chunks is the number of model chunks (stages) per rank, V; 0 means
	// the family's default (1 for most, 2 for V-shaped ones).
	Chunks int
	// Replicas and LocalSteps configure LocalSGD (R and H); Replicas
	// defaults to Ranks.
	Replicas, LocalSteps int
	// NOAM is asynchronous PipeDream's admission cap; 0 means Ranks.
	NOAM int
}

// Family is a schedule generator.
type Family struct {
	// Name is the family's name on the command line ("1f1b").
	Name string
	// Summary is one line for "pipelab kinds".
	Summary string
	// Generate builds the family's table for a shape, or says which
	// constraint of the family the shape breaks.
	Generate func(Shape) (*Table, error)

	// torchOrder lays a generated table's rows out as PyTorch's
	// pipeline_order for the family does (TorchOrder), or reports false
	// for a shape PyTorch does not build; nil for a family PyTorch lacks
	// or whose rows are PyTorch's already.
	torchOrder func(*Table) ([][]Action, bool)
}

// familyOrder is the order "pipelab kinds" lists the families in.
var familyOrder = []string{
	"gpipe", "1f1b", "interleaved-1f1b", "looped-bfs", "zb-h1", "zb-h2", "zb-v", "dualpipev",
	"dualpipe", "v-half", "v-min", "combined-1f1b", "interleaved-zb", "chimera", "hanayo", "pipedream", "localsgd",
}

var families = map[string]Family{}

// registerFamily is called from the init function of each generator file.
func registerFamily(f Family) {
	if _, dup := families[f.Name]; dup {
		panic("pipeline: family registered twice: " + f.Name)
	}
	families[f.Name] = f
}

// Families returns the registered families, in the documented order first.
func Families() []Family {
	var out []Family
	for _, name := range familyOrder {
		if f, ok := families[name]; ok {
			out = append(out, f)
		}
	}
	var rest []string
	for name := range families {
		if !slices.Contains(familyOrder, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	for _, name := range rest {
		out = append(out, families[name])
	}
	return out
}

// Generate builds the table of the named family for a shape.
func Generate(family string, sh Shape) (*Table, error) {
	f, ok := families[family]
	if !ok {
		names := make([]string, 0, len(families))
		for _, g := range Families() {
			names = append(names, g.Name)
		}
		return nil, fmt.Errorf("pipeline: unknown schedule family %q (known: %s)", family, strings.Join(names, ", "))
	}
	t, err := f.Generate(sh)
	if err != nil {
		return nil, fmt.Errorf("pipeline: %s: %w", family, err)
	}
	t.Family = family
	return t, nil
}
