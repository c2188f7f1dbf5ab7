package results

import (
	"github.com/pipelab/pipelab/pipeline/sim"

	"github.com/apache/arrow-go/v18/arrow"
)

// Levels at which a schedule is priced (the tabular-schedule paper's three
// levels, docs/reference.md §2).
const (
	LevelFormula   = "formula"   // closed-form makespan and bubble
	LevelLockstep  = "lockstep"  // the idealised table, one column per time step
	LevelSimulated = "simulated" // the event simulator under a cost model
)

// ScheduleMetric is one row of the schedules table: the metrics of one
// schedule family for one shape, cost model and level.
type ScheduleMetric struct {
	RunID           string  // the run of the experiment that produced the row (Run.RunID's form)
	Experiment      string  // the experiment or paper figure the run belongs to
	ScheduleID      string  // unique name of the schedule (TimelineEvent.ScheduleID)
	Family          string  // schedule family, the kind column ("gpipe", "1f1b", ...; --kind, docs/cli.md)
	Ranks           int32   // pipeline ranks (devices) P
	Microbatches    int32   // microbatches M
	Chunks          int32   // model chunks per rank V (stages = P·V)
	CostModel       string  // CostUnit or CostGPU
	Model           string  // model preset of the GPU cost model ("" (null) under CostUnit)
	GPU             string  // GPU preset of the GPU cost model ("" (null) under CostUnit)
	Link            string  // link preset of the GPU cost model ("" (null) under CostUnit)
	Level           string  // LevelFormula, LevelLockstep or LevelSimulated
	Makespan        float64 // iteration time, in the cost model's unit
	BubbleRatio     float64 // idle share of ranks × makespan, in [0, 1]
	PeakActivations float64 // most activations held by one rank, in microbatches of a rank's share of the model (M_B; a chunk of V holds 1/V)
	PeakMemoryBytes int64   // most bytes held by one rank; 0 where not measured (null in the file)
	KindRank        int32   // 1 for the smallest makespan among the kinds of the same shape, cost model and level
}

var scheduleTable = table[ScheduleMetric]{kind: "schedules", columns: []column[ScheduleMetric]{
	stringCol("run_id", func(m *ScheduleMetric) *string { return &m.RunID }),
	stringCol("experiment", func(m *ScheduleMetric) *string { return &m.Experiment }),
	stringCol("schedule_id", func(m *ScheduleMetric) *string { return &m.ScheduleID }),
	stringCol("kind", func(m *ScheduleMetric) *string { return &m.Family }),
	int32Col("ranks", func(m *ScheduleMetric) *int32 { return &m.Ranks }),
	int32Col("microbatches", func(m *ScheduleMetric) *int32 { return &m.Microbatches }),
	int32Col("chunks", func(m *ScheduleMetric) *int32 { return &m.Chunks }),
	stringCol("cost_model", func(m *ScheduleMetric) *string { return &m.CostModel }),
	optionalStringCol("model", func(m *ScheduleMetric) *string { return &m.Model }),
	optionalStringCol("gpu", func(m *ScheduleMetric) *string { return &m.GPU }),
	optionalStringCol("link", func(m *ScheduleMetric) *string { return &m.Link }),
	stringCol("level", func(m *ScheduleMetric) *string { return &m.Level }),
	float64Col("makespan", func(m *ScheduleMetric) *float64 { return &m.Makespan }),
	float64Col("bubble_ratio", func(m *ScheduleMetric) *float64 { return &m.BubbleRatio }),
	float64Col("peak_activations", func(m *ScheduleMetric) *float64 { return &m.PeakActivations }),
	unmeasuredInt64Col("peak_memory_bytes", func(m *ScheduleMetric) *int64 { return &m.PeakMemoryBytes }),
	int32Col("kind_rank", func(m *ScheduleMetric) *int32 { return &m.KindRank }),
}}

// ScheduleSchema returns the Arrow schema of the schedules table.
func ScheduleSchema() *arrow.Schema { return scheduleTable.schema() }

// WriteSchedules writes metrics to the Parquet file at path, sorted by
// schedule id, then family, shape, cost model and level.
func WriteSchedules(path string, metrics []ScheduleMetric) error {
	return writeTable(path, &scheduleTable, metrics)
}

// ReadSchedules reads the schedules table at path.
func ReadSchedules(path string) ([]ScheduleMetric, error) { return readTable(path, &scheduleTable) }

// RankKinds sets KindRank of every metric: within each group of the
// same (Ranks, Microbatches, CostModel, Model, GPU, Link, Level), rows are
// ranked by makespan (Ranks). Chunks is not part of the group, so kinds
// with different chunk counts compete on the same shape.
func RankKinds(metrics []ScheduleMetric) {
	type group struct {
		ranks, microbatches                int32
		costModel, model, gpu, link, level string
	}
	byGroup := map[group][]int{}
	for i, m := range metrics {
		g := group{m.Ranks, m.Microbatches, m.CostModel, m.Model, m.GPU, m.Link, m.Level}
		byGroup[g] = append(byGroup[g], i)
	}
	for _, idx := range byGroup {
		values := make([]float64, len(idx))
		for j, i := range idx {
			values[j] = metrics[i].Makespan
		}
		for j, r := range Ranks(values) {
			metrics[idx[j]].KindRank = int32(r)
		}
	}
}

// Ranks is sim.Ranks, the one ranking rule of schedule families.
var Ranks = sim.Ranks
