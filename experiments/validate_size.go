package experiments

import (
	"fmt"
	"unsafe"

	"github.com/pipelab/pipelab/internal/budget"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/tune"
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

// Peak memory per cell of a command's generated table (pipeline.CellBound):
// the peak resident set above that of the same command on a 2 × 2 table,
// measured by TestSizeEstimatesCoverThePeak (cmd/pipelab) for every family
// at two shapes, divided by the bound, at its largest over two runs (at
// 8 × 2000 and 16 × 6000, then at 8 × 4000 and 16 × 8000):
//
//	schedule (text or csv)  382 B/cell  chimera --format csv at 16 × 8000; zb-v, interleaved-zb and hanayo above 300
//	simulate                588 B/cell  hanayo at 8 × 2000
//	compare                 830 B/cell  16 × 6000, of its largest family's bound
//	delays (a replay)       120 B/cell  pipedream
//
// rounded up with room for the garbage collector's timing, which moves a
// peak by a tenth from run to run. They bound what a command holds at
// once: the table and what is derived from it (the lowered table, the
// timeline, the delays, the replay's events). The test checks every
// family against them; docs/robustness.md lists each estimate beside its
// peak.
const (
	ScheduleCellBytes = 500
	SimulateCellBytes = 800
	CompareCellBytes  = 1100
	ReplayCellBytes   = 480
)

// GuardShape refuses, before anything is allocated, work on the table
// family would generate for sh when it would need more memory than the
// limit (budget.Check), cellBytes a cell (ShapeBytes): the one guard of a
// sweep's runs (checkSizes) and the command line's tables. It fails
// closed: a table it cannot bound (an unknown family, options the family
// refuses) is refused with the reason, as bad input.
func GuardShape(family string, sh pipeline.Shape, cellBytes float64) error {
	bytes, err := ShapeBytes(family, sh, cellBytes)
	if err != nil {
		return err
	}
	return budget.Check(fmt.Sprintf("a %d × %d %s table", sh.Ranks, sh.Microbatches, family), bytes)
}

// ShapeBytes is what GuardShape holds work on family's table for sh to:
// its cells (pipeline.CellBound) times cellBytes, what the work holds a
// cell. zb-auto, which pipeline/tune builds from costs, is bounded by
// tune.ZBAutoCellBound, and its building (tune.ZBAutoCellBytes a cell)
// comes on top of the work. An error, which matches ErrBadInput, says why
// the table cannot be bounded.
func ShapeBytes(family string, sh pipeline.Shape, cellBytes float64) (float64, error) {
	var cells float64
	var err error
	if family == tune.ZBAutoFamily {
		cells, err = tune.ZBAutoCellBound(sh.Ranks, sh.Microbatches)
		cellBytes += tune.ZBAutoCellBytes
	} else {
		cells, err = pipeline.CellBound(family, sh)
	}
	if err != nil {
		return 0, badInputf("a %d × %d %s table: %v", sh.Ranks, sh.Microbatches, family, err)
	}
	return cells * cellBytes, nil
}

// GuardData refuses a generated data set of n rows and d columns that
// would need more memory than the limit: 658 MB measured for train
// --objective quadratic --d 20000 (n = 2000, 4·10⁷ entries) on 2 stages,
// 16 B per entry (the float64 matrix and a matrix of the same size while
// it is made), rounded up to dataEntryBytes.
func GuardData(n, d int) error {
	return budget.Check(fmt.Sprintf("a %d × %d data set", n, d), float64(n)*float64(d)*dataEntryBytes)
}
