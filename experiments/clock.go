package experiments

import (
	"strings"
	"sync"

	"github.com/pipelab/pipelab/results"
)

// The runs and schedules tables record only the cost model of a run, not
// the GPU model's presets; a figure's title names them when its rows are
// those of a preset figure, recognised by their run ids (which hash every
// setting, the cost model's included) or, for schedules, by the timing
// part of their schedule ids.
var presetClocks = sync.OnceValue(func() (c struct {
	byRun    map[string]CostSpec
	byTiming map[string]CostSpec
}) {
	c.byRun, c.byTiming = map[string]CostSpec{}, map[string]CostSpec{}
	for _, f := range Figures() {
		for _, quick := range []bool{true, false} {
			runs, err := f.Runs(quick)
			if err != nil {
				continue // a preset that does not validate has no runs to name
			}
			for _, r := range runs {
				c.byRun[r.ID] = r.Cost
				c.byTiming[timingKey(r.Cost)] = r.Cost
			}
		}
	}
	return c
})

// timingKey is the part of a schedule id that names its cost model
// (scheduleID).
func timingKey(c CostSpec) string {
	id := scheduleID(c, 1, 1, "family", "level")
	return id[:strings.Index(id, "_")]
}

// clock makes a results.Clock of a cost spec.
func (c CostSpec) clock() results.Clock {
	return results.Clock{CostModel: c.CostModel, Preset: c.Preset, GPU: c.GPU, Link: c.Link}
}

// runsClock is the clock of runs that all belong to preset figures timed
// by one cost spec; otherwise (a user's spec) the cost model alone.
func runsClock(runs []results.Run) results.Clock {
	known := presetClocks().byRun
	var spec *CostSpec
	for _, r := range runs {
		c, ok := known[r.RunID]
		if !ok || (spec != nil && *spec != c) {
			return results.Clock{CostModel: r.CostModel}
		}
		spec = &c
	}
	if spec == nil {
		return results.Clock{}
	}
	return spec.clock()
}

// scheduleClock is the clock of a schedule id or comparison key whose
// timing part is a preset figure's.
func scheduleClock(id string) results.Clock {
	t, _, _ := strings.Cut(id, "_")
	if c, ok := presetClocks().byTiming[t]; ok {
		return c.clock()
	}
	return results.Clock{}
}
