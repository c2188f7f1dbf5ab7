package experiments

import (
	"pipelab/optim"
	"pipelab/pipeline"
	"pipelab/pipeline/sim"
	"pipelab/results"
)

// runDelays measures PipeDream's delays k - j_k^(s) on the unit-time
// timeline with S stages and N microbatches (docs/reference.md §1.3), over the
// steady second half of the rows and over all of them.
func runDelays(r Run) (*results.Tables, error) {
	tab, err := pipeline.Generate("pipedream", pipeline.Shape{Ranks: r.Stages, Microbatches: r.Microbatches})
	if err != nil {
		return nil, err
	}
	tl := sim.FromGrid(tab)
	out := &results.Tables{}
	for _, w := range []struct {
		name   string
		window optim.Window
	}{{results.WindowSteady, optim.Steady}, {results.WindowAll, optim.All}} {
		// The profile counts the delays rather than keeping them, so the
		// figure's memory does not grow with its N·S × S delays.
		p, err := optim.StageDelays(tl, w.window)
		if err != nil {
			return nil, err
		}
		st := p.Total
		out.Delays = append(out.Delays, results.DelayStat{
			RunID: r.ID, Experiment: r.Spec, Method: r.Method, Kind: DefaultAsyncFamily, Stages: int32(r.Stages), Microbatches: int32(r.Microbatches),
			Window: w.name, Stage: results.AllStages,
			TimeSteps: int64(p.TimeSteps), Rows: int64(st.Rows), Max: int64(st.Max), Mean: st.Mean, P10: st.P10,
		})
	}
	return out, nil
}
