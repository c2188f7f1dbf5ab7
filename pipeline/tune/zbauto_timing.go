package tune

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// This file holds how zb-auto times and measures its candidates: the
// cost model its stage times make, the unit-time layout of the winner,
// and the activations held and the longest rank span.

// stageTimesCost prices a table of one stage per rank from StageTimes.
type stageTimesCost []StageTimes

func (c stageTimesCost) Compute(a pipeline.Action) float64 {
	st := c[a.Stage]
	switch a.Kind {
	case pipeline.Forward:
		return st.TF
	case pipeline.Backward:
		return st.TB + st.TW
	case pipeline.BackwardInput:
		return st.TB
	case pipeline.BackwardWeight:
		return st.TW
	}
	return 0
}

func (c stageTimesCost) Transfer(_ pipeline.Action, from, to int) float64 {
	if from == to {
		return 0
	}
	return c[min(from, to)].Comm
}

// unitGrid lays a table's rows out as the idealised unit-time grid of
// their order (every action one step, transfers free), the form every
// generated table has: each action in the column of the step it starts.
func unitGrid(t *pipeline.Table) (*pipeline.Table, error) {
	tl, err := sim.Simulate(t, cost.Unit{}, sim.Options{})
	if err != nil {
		return nil, fmt.Errorf("tune: zb-auto: %w", err)
	}
	rows := make([][]pipeline.Action, len(t.Rows))
	for _, e := range tl.Events {
		if !e.Action.Kind.IsCompute() {
			continue
		}
		at := int(e.Start)
		for len(rows[e.Rank]) <= at {
			rows[e.Rank] = append(rows[e.Rank], pipeline.Action{})
		}
		rows[e.Rank][at] = e.Action
	}
	out := *t
	out.Rows = rows
	return &out, nil
}

// peakHeld is the most activations, in M_B, any rank holds when it runs
// its row in order, with a split microbatch holding share of M_B between
// its I and its W. With share 1 it is sim.FixedPeakActivations' largest.
func peakHeld(t *pipeline.Table, share float64) float64 {
	peak := 0.0
	for _, row := range t.Rows {
		held := 0.0
		for _, a := range row {
			switch a.Kind {
			case pipeline.Forward:
				held++
			case pipeline.BackwardInput:
				held -= 1 - share
			case pipeline.BackwardWeight:
				held -= share
			}
			peak = max(peak, held)
		}
	}
	return peak
}
