package results

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Windows of delay rows a DelayStat is taken over.
const (
	WindowSteady = "steady" // the second half of the rows (docs/reference.md §1.3)
	WindowAll    = "all"    // every row, warm-up and drain included
)

// AllStages is the Stage of a DelayStat over every stage's block.
const AllStages = -1

// DelayStat is one row of the delays table: statistics of the delays
// k - j_k^(s) of an asynchronous replay (PipeDream's, or 2BW's) of one
// schedule family's unit-time timeline for one shape, over every stage's
// block (Stage AllStages, null in the file) or over one stage's own block
// at its updates (the delay-profiles figure).
type DelayStat struct {
	RunID             string  // the run of the experiment that produced the row (Run.RunID's form)
	Experiment        string  // the experiment or paper figure the run belongs to
	Method            string  // the replay whose delays these are: "pipedream" or "2bw"
	Kind              string  // the schedule family replayed ("pipedream", "zb-h1", ...)
	Stages            int32   // pipeline stages S
	TotalMicrobatches int32   // total microbatches N
	Window            string  // WindowSteady or WindowAll
	Stage             int32   // the stage whose own block the row covers, or AllStages
	TimeSteps         int64   // length of the timeline in steps
	Rows              int64   // delay rows (block updates; 2BW's per stage: microbatches) the statistics cover
	Max               int64   // largest delay
	Mean              float64 // mean delay over rows and stages
	P10               float64 // 10th percentile of the delays
}

var delayTable = table[DelayStat]{kind: "delays", columns: []column[DelayStat]{
	stringCol("run_id", func(d *DelayStat) *string { return &d.RunID }),
	stringCol("experiment", func(d *DelayStat) *string { return &d.Experiment }),
	stringCol("method", func(d *DelayStat) *string { return &d.Method }),
	stringCol("kind", func(d *DelayStat) *string { return &d.Kind }),
	int32Col("stages", func(d *DelayStat) *int32 { return &d.Stages }),
	int32Col("total_microbatches", func(d *DelayStat) *int32 { return &d.TotalMicrobatches }),
	stringCol("delay_window", func(d *DelayStat) *string { return &d.Window }),
	nullCol[DelayStat, int32, *array.Int32Builder]("stage", arrow.PrimitiveTypes.Int32, func(d *DelayStat) *int32 { return &d.Stage },
		func(d *DelayStat) bool { return d.Stage == AllStages }, AllStages, int32Value),
	int64Col("time_steps", func(d *DelayStat) *int64 { return &d.TimeSteps }),
	int64Col("block_updates", func(d *DelayStat) *int64 { return &d.Rows }),
	int64Col("max", func(d *DelayStat) *int64 { return &d.Max }),
	float64Col("mean", func(d *DelayStat) *float64 { return &d.Mean }),
	float64Col("p10", func(d *DelayStat) *float64 { return &d.P10 }),
}}

// DelaySchema returns the Arrow schema of the delays table.
func DelaySchema() *arrow.Schema { return delayTable.schema() }

// WriteDelays writes stats to the Parquet file at path, sorted by its
// columns in order.
func WriteDelays(path string, stats []DelayStat) error {
	return writeTable(path, &delayTable, stats)
}

// ReadDelays reads the delays table at path.
func ReadDelays(path string) ([]DelayStat, error) { return readTable(path, &delayTable) }

// DelayRow is one row of the optional raw delay table: the delay of one
// stage's block in one block update, in long form (one row per (k, s)).
type DelayRow struct {
	RunID             string // the run of the experiment that produced the row (Run.RunID's form)
	Experiment        string // the experiment or paper figure the run belongs to
	Stages            int32  // pipeline stages S
	TotalMicrobatches int32  // total microbatches N
	Update            int64  // block update k, counted from 1 in timeline order
	Stage             int32  // stage s whose block was read
	Delay             int64  // k - j_k^(s)
}

var delayRowTable = table[DelayRow]{kind: "delay_rows", columns: []column[DelayRow]{
	stringCol("run_id", func(d *DelayRow) *string { return &d.RunID }),
	stringCol("experiment", func(d *DelayRow) *string { return &d.Experiment }),
	int32Col("stages", func(d *DelayRow) *int32 { return &d.Stages }),
	int32Col("total_microbatches", func(d *DelayRow) *int32 { return &d.TotalMicrobatches }),
	int64Col("block_update", func(d *DelayRow) *int64 { return &d.Update }),
	int32Col("stage", func(d *DelayRow) *int32 { return &d.Stage }),
	int64Col("delay", func(d *DelayRow) *int64 { return &d.Delay }),
}}

// DelayRowSchema returns the Arrow schema of the raw delay table.
func DelayRowSchema() *arrow.Schema { return delayRowTable.schema() }

// WriteDelayRows writes rows to the Parquet file at path, sorted by stages,
// microbatches, update and stage.
func WriteDelayRows(path string, rows []DelayRow) error {
	return writeTable(path, &delayRowTable, rows)
}

// ReadDelayRows reads the raw delay table at path.
func ReadDelayRows(path string) ([]DelayRow, error) { return readTable(path, &delayRowTable) }
