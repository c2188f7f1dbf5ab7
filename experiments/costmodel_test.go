package experiments

import (
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// The unit trait is exactly the cost models CostSpec.Model builds as
// cost.Unit (the zero value "" among them), and an unknown name's error
// names every cost model.
func TestCostModelNamed(t *testing.T) {
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 2, Microbatches: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", "unit", "gpu"} {
		c := CostSpec{CostModel: name}
		c.setDefaults()
		m, err := c.Model(tab)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		d, err := CostModelNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, unit := m.(cost.Unit); unit != d.Unit || unit == d.GPU {
			t.Errorf("%q builds a %T; descriptor %+v", name, m, d)
		}
	}
	_, err = CostModelNamed("gpus")
	if err == nil {
		t.Fatal("gpus: no error")
	}
	for _, d := range costModelTable {
		if !strings.Contains(err.Error(), d.Name) {
			t.Errorf("%q does not name %s", err, d.Name)
		}
	}
}
