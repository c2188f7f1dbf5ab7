package experiments

import (
	"fmt"
	"github.com/pipelab/pipelab/experiments/costspec"
	"unsafe"

	"github.com/pipelab/pipelab/internal/budget"
	"github.com/pipelab/pipelab/pipeline"
)

// Memory of one run per cell of its table (pipeline.CellBound) and per
// entry of its generated data set. A run does with its table at most what
// compare does with one family (price it at the three levels: 830 B a cell
// at its peak, TestSizeEstimatesCoverThePeak) or a replay (120 B a cell), so
// it is held to compare's CompareCellBytes; 16 B per data entry measured,
// rounded up.
const (
	runCellBytes   = CompareCellBytes
	dataEntryBytes = 20
)

// checkSizes refuses, by arithmetic alone, a spec one of whose runs would
// need more memory than the limit (budget.Check): the largest table of
// each stage (or rank) count and microbatch count, and the data set. Runs with a
// time budget under unit costs are sized with N = the budget, a bound (a
// unit-time pipeline admits at most one microbatch per step); under the
// GPU model their N is only known once the iteration is timed.
func (s *Spec) checkSizes(v validator) error {
	if n := s.runBound(); n*runBytes > 0 {
		if err := budget.Check(fmt.Sprintf("a sweep of %.0f runs", n), n*runBytes); err != nil {
			return v.fail(err.Error(), "seeds")
		}
	}
	if s.Measure == Convergence && s.N > 0 && s.D > 0 {
		for _, o := range s.Objectives {
			if objectiveOf(o).LM {
				continue
			}
			if err := GuardData(s.N, s.D); err != nil {
				return v.fail(err.Error()+" (objective "+o+")", "d")
			}
		}
	}
	if err := s.checkDelayTables(v); err != nil {
		return err
	}
	if err := s.checkDelayRows(v); err != nil {
		return err
	}
	counts, countKey := s.Stages, "stages"
	if s.Measure == Schedules {
		counts, countKey = s.Ranks, "ranks"
	}
	for si, st := range counts {
		for _, t := range s.tablesOf(st) {
			// A shape the family refuses is refused here, naming the key.
			if err := GuardShape(t.family, t.shape, runCellBytes); err != nil {
				path := t.key
				if path == nil {
					path = []any{countKey, si}
				}
				return v.fail(err.Error(), path...)
			}
		}
	}
	return nil
}

// runBytes is what Expand and the runner hold per run of a sweep: the Run
// (unsafe.Sizeof), its canonical name and id, and the runner's state.
const runBytes = float64(unsafe.Sizeof(Run{})) + 512

// runBound bounds the number of runs Expand makes, by the arithmetic of its
// loops (RPD's δ variants counted before duplicates are dropped).
func (s *Spec) runBound() float64 { return measureOf(s.Measure).runBound(s) }

// specTable is one table a spec's runs generate, with the key that sets
// its microbatch count.
type specTable struct {
	family string
	shape  pipeline.Shape
	key    []any
}

// tablesOf lists the tables the spec's runs on st stages (or, for the
// schedules measure, st ranks) generate.
func (s *Spec) tablesOf(st int) []specTable {
	var out []specTable
	add := func(family string, sh pipeline.Shape, key ...any) {
		sh.Ranks = st
		out = append(out, specTable{family: family, shape: sh, key: key})
	}
	measureOf(s.Measure).tables(s, st, add)
	return out
}

// The bytes a cell of each command's table, and the guard of a generated
// table, are costspec's (the command line needs them without Arrow).
const (
	ScheduleCellBytes = costspec.ScheduleCellBytes
	SimulateCellBytes = costspec.SimulateCellBytes
	CompareCellBytes  = costspec.CompareCellBytes
	ReplayCellBytes   = costspec.ReplayCellBytes
)

// GuardShape and ShapeBytes are costspec's.
var (
	GuardShape = costspec.GuardShape
	ShapeBytes = costspec.ShapeBytes
)

// GuardData refuses a generated data set of n rows and d columns that
// would need more memory than the limit: 658 MB measured for train
// --objective quadratic --d 20000 (n = 2000, 4·10⁷ entries) on 2 stages,
// 16 B per entry (the float64 matrix and a matrix of the same size while
// it is made), rounded up to dataEntryBytes.
func GuardData(n, d int) error {
	return budget.Check(fmt.Sprintf("a %d × %d data set", n, d), float64(n)*float64(d)*dataEntryBytes)
}
