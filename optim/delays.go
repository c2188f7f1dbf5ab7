package optim

import (
	"fmt"
	"math"
	"slices"

	"pipelab/pipeline"
	"pipelab/pipeline/sim"
)

// DelayRow is one block update of a delay table: the stage it updates, the
// microbatch it belongs to (its batch is Microbatch mod Batches) and, for
// every stage j, the delay k - j_k^(j) of the block it read.
type DelayRow struct {
	Stage      int
	Microbatch int
	Delays     []int
}

// DelayTable lists block updates with their delays: PipeDream's exact
// delays measured from a timeline (Delays), or a recorded trace
// (ReadDelayTrace). It is also RPD's delay model that replays those rows in
// order.
type DelayTable struct {
	Stages int
	// TimeSteps is the makespan of the measured timeline (zero for a
	// trace).
	TimeSteps float64
	Rows      []DelayRow
}

// Delays measures the delays of a timeline replayed as PipeDream
// (docs/reference.md §1.3): the backwards in replay order (start, then stage)
// are the block updates k = 0, 1, ...; for update k of microbatch m and
// every stage j, j_k^(j) is the number of backwards before F(m, j) in the
// same order, and the delay is k - j_k^(j).
func Delays(tl *sim.Timeline) (*DelayTable, error) {
	if tl == nil || tl.Table == nil {
		return nil, fmt.Errorf("%w: no timeline", ErrTimeline)
	}
	stages := tl.Table.Stages()
	if _, _, err := checkTimeline(tl, stages); err != nil {
		return nil, err
	}
	read := map[int][]int{} // microbatch → backwards before its forward on each stage
	dt := &DelayTable{Stages: stages, TimeSteps: endTime(tl)}
	for _, e := range replayOrder(tl) {
		a := e.Action
		switch a.Kind {
		case pipeline.Forward:
			js := read[a.Microbatch]
			if js == nil {
				js = make([]int, stages)
				for i := range js {
					js[i] = -1
				}
				read[a.Microbatch] = js
			}
			js[a.Stage] = len(dt.Rows)
		case pipeline.Backward:
			js := read[a.Microbatch]
			k := len(dt.Rows)
			row := DelayRow{Stage: a.Stage, Microbatch: a.Microbatch, Delays: make([]int, stages)}
			for j := range row.Delays {
				if js == nil || js[j] < 0 {
					return nil, fmt.Errorf("%w: B of microbatch %d on stage %d at %g before its forward on stage %d", ErrTimeline, a.Microbatch, a.Stage, e.Start, j)
				}
				row.Delays[j] = k - js[j]
			}
			dt.Rows = append(dt.Rows, row)
		}
	}
	return dt, nil
}

// Window selects the rows delay statistics are taken over.
type Window uint8

const (
	// Steady is the second half of the rows, the reference's steady state
	// (docs/reference.md §1.3).
	Steady Window = iota
	// All is every row, warm-up and drain included.
	All
)

// DelayStats summarises the delays of a window of rows over all stages.
type DelayStats struct {
	Rows int     // rows in the window
	Max  int     // largest delay
	Mean float64 // mean delay
	P10  float64 // 10th percentile, linearly interpolated between order statistics
}

// Stats returns the statistics of the window's delays.
func (d *DelayTable) Stats(w Window) DelayStats {
	rows := d.Rows
	if w == Steady {
		rows = rows[len(rows)/2:]
	}
	var all []int
	for _, r := range rows {
		all = append(all, r.Delays...)
	}
	st := DelayStats{Rows: len(rows)}
	if len(all) == 0 {
		return st
	}
	slices.Sort(all)
	var sum float64
	for _, v := range all {
		sum += float64(v)
	}
	st.Max = all[len(all)-1]
	st.Mean = sum / float64(len(all))
	st.P10 = percentile(all, 0.10)
	return st
}

// percentile interpolates linearly between the order statistics of the
// sorted values (the default method of numpy.percentile).
func percentile(sorted []int, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return float64(sorted[lo]) + (pos-float64(lo))*float64(sorted[hi]-sorted[lo])
}
