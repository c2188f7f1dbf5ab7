package results

import "github.com/apache/arrow-go/v18/arrow"

// CurvePoint is one row of the curves table: the loss of a run at one
// logged instant.
type CurvePoint struct {
	RunID        string  // the run (Run.RunID)
	Experiment   string  // the run's experiment (Run.Experiment)
	Time         float64 // simulated time, in the run's cost-model unit; NaN (null) for RPD, which has no timeline
	BlockUpdates int64   // block updates applied up to Time
	Loss         float64 // objective value at Time
	// ValidationLoss is the held-out loss at Time where the objective has a
	// held-out set; null (NaN) otherwise.
	ValidationLoss float64
}

var curveTable = table[CurvePoint]{kind: "curves", columns: []column[CurvePoint]{
	stringCol("run_id", func(p *CurvePoint) *string { return &p.RunID }),
	stringCol("experiment", func(p *CurvePoint) *string { return &p.Experiment }),
	nullableFloat64Col("sim_time", func(p *CurvePoint) *float64 { return &p.Time }),
	int64Col("block_updates", func(p *CurvePoint) *int64 { return &p.BlockUpdates }),
	float64Col("loss", func(p *CurvePoint) *float64 { return &p.Loss }),
	nullableFloat64Col("validation_loss", func(p *CurvePoint) *float64 { return &p.ValidationLoss }),
}}

// CurveSchema returns the Arrow schema of the curves table.
func CurveSchema() *arrow.Schema { return curveTable.schema() }

// WriteCurves writes points to the Parquet file at path, sorted by run id,
// then simulated time, then block updates.
func WriteCurves(path string, points []CurvePoint) error {
	return writeTable(path, &curveTable, points)
}

// ReadCurves reads the curves table at path.
func ReadCurves(path string) ([]CurvePoint, error) { return readTable(path, &curveTable) }
