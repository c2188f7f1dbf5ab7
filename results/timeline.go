package results

import "github.com/apache/arrow-go/v18/arrow"

// TimelineEvent is one row of the timeline table: one timed action of a
// schedule (a sim.Event flattened).
type TimelineEvent struct {
	RunID      string  // the run of the experiment that produced the row (Run.RunID's form)
	Experiment string  // the experiment or paper figure the run belongs to
	ScheduleID string  // the schedule (ScheduleMetric.ScheduleID)
	Rank       int32   // device that ran the action
	Index      int32   // position of the action among the rank's timed actions (computations and transfers), from 0 in start order
	Kind       string  // action kind as PyTorch writes it ("F", "B", "I", "W", "SEND_F", ...)
	Stage      int32   // stage the action belongs to
	Microbatch int32   // microbatch, or -1 for kinds without one
	Start      float64 // start time, in the cost model's unit
	End        float64 // end time
}

var timelineTable = table[TimelineEvent]{kind: "timeline", columns: []column[TimelineEvent]{
	stringCol("run_id", func(e *TimelineEvent) *string { return &e.RunID }),
	stringCol("experiment", func(e *TimelineEvent) *string { return &e.Experiment }),
	stringCol("schedule_id", func(e *TimelineEvent) *string { return &e.ScheduleID }),
	int32Col("rank", func(e *TimelineEvent) *int32 { return &e.Rank }),
	int32Col("action_index", func(e *TimelineEvent) *int32 { return &e.Index }),
	stringCol("action_kind", func(e *TimelineEvent) *string { return &e.Kind }),
	int32Col("stage", func(e *TimelineEvent) *int32 { return &e.Stage }),
	int32Col("microbatch", func(e *TimelineEvent) *int32 { return &e.Microbatch }),
	float64Col("start_time", func(e *TimelineEvent) *float64 { return &e.Start }),
	float64Col("end_time", func(e *TimelineEvent) *float64 { return &e.End }),
}}

// TimelineSchema returns the Arrow schema of the timeline table.
func TimelineSchema() *arrow.Schema { return timelineTable.schema() }

// WriteTimeline writes events to the Parquet file at path, sorted by run
// id, experiment, schedule id, rank and action index.
func WriteTimeline(path string, events []TimelineEvent) error {
	return writeTable(path, &timelineTable, events)
}

// ReadTimeline reads the timeline table at path.
func ReadTimeline(path string) ([]TimelineEvent, error) { return readTable(path, &timelineTable) }
