package results

// Clock is what a figure's time axis is measured by, named in its title:
// unit time (every F and B one step), or the GPU model with the model,
// device and link presets that priced the schedule. The runs and schedules
// tables record only the cost model, so callers that know the presets
// (experiments.PlotDir, from the figure's spec) pass them with WithClock.
type Clock struct {
	CostModel         string // CostUnit or CostGPU
	Preset, GPU, Link string // the GPU model's presets; empty when not known
}

// String names the clock for a title: "unit time", "GPU model: gpt-1.3b
// on a100 over nvlink", or "GPU model" when the presets are not known.
func (c Clock) String() string {
	switch c.CostModel {
	case CostUnit:
		return "unit time"
	case CostGPU:
		if c.Preset == "" || c.GPU == "" || c.Link == "" {
			return "GPU model"
		}
		return "GPU model: " + c.Preset + " on " + c.GPU + " over " + c.Link
	}
	return c.CostModel + " cost model"
}

// PlotOption adjusts what a plot shows beyond its rows.
type PlotOption func(*plotOptions)

type plotOptions struct {
	clock      *Clock
	model      string
	references []ReferenceLoss // plot_reference.go
}

// WithModel names the model the runs train after their objective in the
// plot's title, e.g. "charlm (E 32, T 16, 30,144 params, 0.36–0.43M
// chars seen)": what the rows do not record, the size of an LM and the
// text it saw.
func WithModel(desc string) PlotOption {
	return func(o *plotOptions) { o.model = desc }
}

// objectiveTitle is the objectives of runs for a title, with the model
// WithModel names, if any.
func objectiveTitle(runs []Run, opts []PlotOption) string {
	var o plotOptions
	for _, f := range opts {
		f(&o)
	}
	t := describe(runs, func(r *Run) string { return r.Objective })
	if o.model != "" {
		t += " (" + o.model + ")"
	}
	return t
}

// WithClock names c in the plot's title in place of the bare cost model
// of its rows. c.CostModel must match the rows'.
func WithClock(c Clock) PlotOption {
	return func(o *plotOptions) { o.clock = &c }
}

// clockOf returns the clock a plot's title names: the one given with
// WithClock if its cost model is costModel, else costModel's alone.
func clockOf(costModel string, opts []PlotOption) Clock {
	var o plotOptions
	for _, f := range opts {
		f(&o)
	}
	if o.clock != nil && o.clock.CostModel == costModel {
		return *o.clock
	}
	return Clock{CostModel: costModel}
}
