package experiments

import (
	"fmt"
	"github.com/pipelab/pipelab/internal/budget"
	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
	"github.com/pipelab/pipelab/results"
	"unsafe"
)

// runDelays measures PipeDream's delays k - j_k^(s) on the unit-time
// timeline with S stages and N microbatches (docs/reference.md §1.3), over the
// steady second half of the rows and over all of them.
func runDelays(r Run) (*results.Tables, error) {
	tab, err := pipeline.Generate("pipedream", pipeline.Shape{Ranks: r.Stages, Microbatches: r.TotalMicrobatches})
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
			RunID: r.ID, Experiment: r.Spec, Method: r.Method, Kind: DefaultAsyncFamily, Stages: int32(r.Stages), TotalMicrobatches: int32(r.TotalMicrobatches),
			Window: w.name, Stage: results.AllStages,
			TimeSteps: int64(p.TimeSteps), Rows: int64(st.Rows), Max: int64(st.Max), Mean: st.Mean, P10: st.P10,
		})
	}
	if r.DelayRows {
		rows, err := delayRows(tl, r)
		if err != nil {
			return nil, err
		}
		out.DelayRows = rows
	}
	return out, nil
}

// delayRows lists every delay of the run's timeline, one row per block
// update k (from 1, in replay order) and stage s whose block it read.
func delayRows(tl *sim.Timeline, r Run) ([]results.DelayRow, error) {
	dt, err := optim.Delays(tl)
	if err != nil {
		return nil, err
	}
	rows := make([]results.DelayRow, 0, len(dt.Rows)*dt.Stages)
	for k, row := range dt.Rows {
		for s, d := range row.Delays {
			rows = append(rows, results.DelayRow{Stages: int32(r.Stages), TotalMicrobatches: int32(r.TotalMicrobatches),
				Update: int64(k + 1), Stage: int32(s), Delay: int64(d)})
		}
	}
	return rows, nil
}

// delayRowBytesHeld is what one raw delay holds until the tables are
// written: its row (results.DelayRow) and its entry in the measured table.
const delayRowBytesHeld = float64(unsafe.Sizeof(results.DelayRow{})) + 8

// checkDelayRows refuses, by arithmetic, raw delays that would not fit:
// N·S² rows a run, every run's held until the tables are written.
func (s *Spec) checkDelayRows(v validator) error {
	if !s.DelayRows {
		return nil
	}
	var rows float64
	for _, st := range s.Stages {
		for _, n := range s.delayMicrobatches(st) {
			rows += float64(n) * float64(st) * float64(st)
		}
	}
	if err := budget.Check(fmt.Sprintf("a delay_rows table of %.0f rows", rows), rows*delayRowBytesHeld); err != nil {
		return v.fail(err.Error(), "delay_rows")
	}
	return nil
}
