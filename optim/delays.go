package optim

import (
	"fmt"
	"math"
	"slices"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
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
// same order, and the delay is k - j_k^(j). The table keeps every row, as
// RPD's exact delay model needs them; StageDelays summarises the same
// delays without keeping them.
func Delays(tl *sim.Timeline) (*DelayTable, error) {
	if tl == nil || tl.Table == nil {
		return nil, fmt.Errorf("%w: no timeline", ErrTimeline)
	}
	stages := tl.Table.Stages()
	backwards, _, err := checkTimeline(tl, stages)
	if err != nil {
		return nil, err
	}
	dt := &DelayTable{Stages: stages, TimeSteps: endTime(tl), Rows: make([]DelayRow, 0, backwards)}
	all := make([]int, 0, backwards*stages) // one array for every row's delays
	err = walkDelays(tl, stages, func(k, stage, mb int, delays []int) {
		all = append(all, delays...)
		dt.Rows = append(dt.Rows, DelayRow{Stage: stage, Microbatch: mb, Delays: all[k*stages : (k+1)*stages : (k+1)*stages]})
	})
	if err != nil {
		return nil, err
	}
	return dt, nil
}

// walkDelays calls visit for every block update of tl in replay order:
// its number k, its stage and microbatch, and the delay of every stage's
// block (a slice visit must not keep). What it keeps is the backwards
// before each forward of the microbatches whose backwards are not all
// done, so its memory follows the microbatches in flight, not the
// timeline's length.
func walkDelays(tl *sim.Timeline, stages int, visit func(k, stage, mb int, delays []int)) error {
	slotOf := map[int]int{} // microbatch → its row of read
	var read [][]int        // backwards before the microbatch's forward on each stage
	var backs []int         // backwards seen of the row's microbatch
	var free []int          // rows no microbatch uses
	delays := make([]int, stages)
	k := 0
	for _, e := range replayOrder(tl) {
		a := e.Action
		switch a.Kind {
		case pipeline.Forward:
			slot, ok := slotOf[a.Microbatch]
			if !ok {
				if n := len(free); n > 0 {
					slot, free = free[n-1], free[:n-1]
				} else {
					slot = len(read)
					read, backs = append(read, make([]int, stages)), append(backs, 0)
				}
				for j := range read[slot] {
					read[slot][j] = -1
				}
				backs[slot] = 0
				slotOf[a.Microbatch] = slot
			}
			read[slot][a.Stage] = k
		case pipeline.Backward, pipeline.BackwardWeight:
			// A split backward's update lands at its W (the replay's
			// rule), so W is where the block update is counted.
			slot, ok := slotOf[a.Microbatch]
			for j := range delays {
				if !ok || read[slot][j] < 0 {
					return fmt.Errorf("%w: B of microbatch %d on stage %d at %g before its forward on stage %d", ErrTimeline, a.Microbatch, a.Stage, e.Start, j)
				}
				delays[j] = k - read[slot][j]
			}
			visit(k, a.Stage, a.Microbatch, delays)
			k++
			if backs[slot]++; backs[slot] == stages {
				delete(slotOf, a.Microbatch)
				free = append(free, slot)
			}
		}
	}
	return nil
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

// first returns the first row of the window among n rows.
func (w Window) first(n int) int {
	if w == Steady {
		return n / 2
	}
	return 0
}

// DelayStats summarises the delays of a window of rows over all stages.
type DelayStats struct {
	Rows int     // rows in the window
	Max  int     // largest delay
	Mean float64 // mean delay
	P10  float64 // 10th percentile, linearly interpolated between order statistics
}

// Stats returns the statistics of the window's delays.
func (d *DelayTable) Stats(w Window) DelayStats {
	rows := d.Rows[w.first(len(d.Rows)):]
	var h delayHistogram
	for _, r := range rows {
		for _, v := range r.Delays {
			h.add(v)
		}
	}
	return h.stats(len(rows))
}

// DelayProfile summarises the delays of a timeline replayed as PipeDream
// over a window of its block updates, overall and stage by stage.
type DelayProfile struct {
	Stages    int
	TimeSteps float64 // the end of the timeline's last event
	Updates   int     // block updates, the window's and the others
	// Total summarises every delay of the window's updates, the delay of
	// every stage's block (the statistics of DelayTable.Stats).
	Total DelayStats
	// PerStage[s] summarises the delay of stage s's own block at the
	// window's updates of stage s: k - j_k^(s), the block updates between
	// the forward of the microbatch on stage s and its backward there,
	// whose update reads the block that forward stashed. Its Rows counts
	// those updates.
	PerStage []DelayStats
	// MaxAll is the largest delay of any update, warm-up and drain
	// included.
	MaxAll int
}

// StageDelays returns the delay profile of a timeline replayed as
// PipeDream (the delays of Delays) over a window of its block updates. It
// keeps counts of delays, not the delays: its memory grows with the
// largest delay and the microbatches in flight, not with the updates.
func StageDelays(tl *sim.Timeline, w Window) (*DelayProfile, error) {
	if tl == nil || tl.Table == nil {
		return nil, fmt.Errorf("%w: no timeline", ErrTimeline)
	}
	stages := tl.Table.Stages()
	backwards, _, err := checkTimeline(tl, stages)
	if err != nil {
		return nil, err
	}
	first := w.first(backwards)
	var total delayHistogram
	own := make([]delayHistogram, stages)
	p := &DelayProfile{Stages: stages, TimeSteps: endTime(tl), Updates: backwards}
	err = walkDelays(tl, stages, func(k, stage, _ int, delays []int) {
		for _, v := range delays {
			p.MaxAll = max(p.MaxAll, v)
		}
		if k < first {
			return
		}
		for _, v := range delays {
			total.add(v)
		}
		own[stage].add(delays[stage])
	})
	if err != nil {
		return nil, err
	}
	p.Total = total.stats(backwards - first)
	p.PerStage = make([]DelayStats, stages)
	for s := range own {
		p.PerStage[s] = own[s].stats(own[s].n)
	}
	return p, nil
}

// delayHistogram counts delays, which are whole numbers from 0 up to the
// updates so far, so that statistics need no sort.
type delayHistogram struct {
	counts []int // counts[v]: delays equal to v
	n      int
	sum    int64
}

func (h *delayHistogram) add(v int) {
	if v >= len(h.counts) {
		h.counts = slices.Grow(h.counts, max(2*len(h.counts), v+1)-len(h.counts))
		h.counts = h.counts[:cap(h.counts)]
	}
	h.counts[v]++
	h.n++
	h.sum += int64(v)
}

// stats returns the statistics of the delays counted, rows being the rows
// they came from. The mean is exact: a sum of whole numbers below 2^53 is.
func (h *delayHistogram) stats(rows int) DelayStats {
	st := DelayStats{Rows: rows}
	if h.n == 0 {
		return st
	}
	st.Max = len(h.counts) - 1
	for h.counts[st.Max] == 0 {
		st.Max--
	}
	st.Mean = float64(h.sum) / float64(h.n)
	st.P10 = h.percentile(0.10)
	return st
}

// percentile interpolates linearly between the order statistics of the
// delays (the default method of numpy.percentile).
func (h *delayHistogram) percentile(q float64) float64 {
	pos := q * float64(h.n-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, h.n-1)
	vlo, vhi := h.orderStat(lo), h.orderStat(hi)
	return float64(vlo) + (pos-float64(lo))*float64(vhi-vlo)
}

// orderStat returns the i-th smallest delay counted, from 0.
func (h *delayHistogram) orderStat(i int) int {
	seen := 0
	for v, c := range h.counts {
		if seen += c; seen > i {
			return v
		}
	}
	return len(h.counts) - 1
}
