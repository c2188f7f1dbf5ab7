package results

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Outcomes of a run.
const (
	OutcomeOK       = "ok"       // the run finished with a finite loss
	OutcomeDiverged = "diverged" // the loss became non-finite or exceeded the divergence threshold
)

// Run is one row of the runs table: the configuration and the outcome of
// one optimization run. Fields that do not apply to a method are zero in Go
// and null in the file (Delta outside RPD, Replicas and LocalSteps outside
// LocalSGD, TimeBudget without a budget); RPD has no timeline, so its
// SimTime is NaN (null).
type Run struct {
	RunID      string // unique key of the run; CurvePoint.RunID refers to it
	Experiment string // the experiment or paper figure the run belongs to
	Objective  string // objective name ("quadratic", "tridiagonal", "logistic", "charlm")
	Method     string // method ("pipedream", "pd-nostash", "2bw", "pipemare", "predict", "dc", "dc-a", "rpd", "localsgd", "sync")
	Optimizer  string // per-stage optimizer and its settings (optim.Optimizer.Label: "sgd", "adam b1=0.9 ...")

	Stages            int32   // pipeline stages S (blocks of the parameter vector)
	TotalMicrobatches int32   // total microbatches N the run was given
	TimeBudget        float64 // simulated-time budget, in the cost model's unit; 0 (null) when none
	StepSize          float64 // step size γ
	BatchSize         int32   // rows per microbatch
	N                 int32   // rows of the data set
	D                 int32   // dimension of the parameter vector
	Noise             float64 // σ of the logistic objective's additive gradient noise; 0 for the others
	Delta             int32   // RPD's delay bound δ
	DelayModel        string  // RPD's delay model: DelayUniform, DelayPipeDreamMean or DelayPipeDreamProfile; "" (null) outside RPD
	Replicas          int32   // LocalSGD replicas R
	LocalSteps        int32   // LocalSGD local steps H
	Seed              uint64  // seed of every random stream of the run
	Replicate         int32   // replicate number 0..seeds-1: runs of one replicate share their data set
	CostModel         string  // CostUnit or CostGPU

	Outcome       string  // OutcomeOK or OutcomeDiverged
	FinalLoss     float64 // objective at the end of the run (NaN or ±Inf if diverged)
	SimTime       float64 // simulated time the run took, in the cost model's unit (steps or seconds); NaN for RPD
	BlockUpdates  int64   // block updates applied
	SelectionRule string  // rule that chose the step size among the grid ("best-final", "stable", ...)
	Selected      bool    // whether the rule chose this run's step size for its group
	WallSeconds   float64 // wall-clock seconds the run took (the one non-deterministic column)
	ToolVersion   string  // pipelab version that produced the row

	// TimeToTarget and UpdatesToTarget locate the first logged loss at or
	// below the spec's target_loss (the validation loss where the
	// objective has one); null (NaN, NotReached) when never reached or no
	// target was set. LossAtBudget is the loss after the last update that
	// ends within the time budget; null without a budget.
	TimeToTarget    float64
	UpdatesToTarget int64
	LossAtBudget    float64
	// TargetLoss is the spec's target_loss the run was timed to, so a
	// time-to-target plot drawn from the table alone can state it; 0
	// (null) when none was set, and in tables written before the column.
	TargetLoss float64
	// HeldOutLoss is the loss at the run's final point on data the run
	// never trained on (docs/methods.md, "Selection"): the validation loss
	// of the LM, the population loss of a generated quadratic, the loss
	// on a held-out draw of logistic data. The step-size rules rank by it
	// where it exists. NaN (null) for diverged runs and for data read
	// from files, which have no held-out part; 0 in tables written before
	// the column.
	HeldOutLoss float64
	// SelectionBound says where the selected step of the run's group lies
	// in the group's grid (Selected runs only): "" inside it, BoundLower or
	// BoundUpper at its smallest or largest step (the optimum may lie
	// beyond: the grid did not bracket it), BoundFixed for a grid of one
	// step, which nothing was chosen from.
	SelectionBound string
	// MethodSettings are the settings only the run's method has, as its
	// spec keys write them ("dc_lambda=2", "accumulate=4 ef_lambda=0.5",
	// "pipemare_warmup=100 pipemare_decay=0.9"), so that runs of one method
	// at several settings are told apart; "" (null) for the other methods.
	MethodSettings string
}

// Values of Run.SelectionBound.
const (
	BoundLower = "lower"
	BoundUpper = "upper"
	BoundFixed = "fixed"
)

// Diverged reports whether the run's outcome is OutcomeDiverged.
func (r *Run) Diverged() bool { return r.Outcome == OutcomeDiverged }

var runTable = table[Run]{kind: "runs", columns: []column[Run]{
	stringCol("run_id", func(r *Run) *string { return &r.RunID }),
	stringCol("experiment", func(r *Run) *string { return &r.Experiment }),
	stringCol("objective", func(r *Run) *string { return &r.Objective }),
	stringCol("method", func(r *Run) *string { return &r.Method }),
	int32Col("stages", func(r *Run) *int32 { return &r.Stages }),
	int32Col("total_microbatches", func(r *Run) *int32 { return &r.TotalMicrobatches }),
	optionalFloat64Col("time_budget", func(r *Run) *float64 { return &r.TimeBudget }),
	float64Col("step_size", func(r *Run) *float64 { return &r.StepSize }),
	int32Col("batch_size", func(r *Run) *int32 { return &r.BatchSize }),
	int32Col("n", func(r *Run) *int32 { return &r.N }),
	int32Col("d", func(r *Run) *int32 { return &r.D }),
	float64Col("noise", func(r *Run) *float64 { return &r.Noise }),
	optionalInt32Col("delta", func(r *Run) *int32 { return &r.Delta }, isRPD),
	optionalStringCol("delay_model", func(r *Run) *string { return &r.DelayModel }),
	optionalInt32Col("replicas", func(r *Run) *int32 { return &r.Replicas }, isLocalSGD),
	optionalInt32Col("local_steps", func(r *Run) *int32 { return &r.LocalSteps }, isLocalSGD),
	uint64Col("seed", func(r *Run) *uint64 { return &r.Seed }),
	int32Col("replicate", func(r *Run) *int32 { return &r.Replicate }),
	stringCol("cost_model", func(r *Run) *string { return &r.CostModel }),
	stringCol("outcome", func(r *Run) *string { return &r.Outcome }),
	float64Col("final_loss", func(r *Run) *float64 { return &r.FinalLoss }),
	nullableFloat64Col("sim_time", func(r *Run) *float64 { return &r.SimTime }),
	int64Col("block_updates", func(r *Run) *int64 { return &r.BlockUpdates }),
	stringCol("selection_rule", func(r *Run) *string { return &r.SelectionRule }),
	boolCol("selected", func(r *Run) *bool { return &r.Selected }),
	float64Col("wall_seconds", func(r *Run) *float64 { return &r.WallSeconds }),
	stringCol("tool_version", func(r *Run) *string { return &r.ToolVersion }),
	stringCol("optimizer", func(r *Run) *string { return &r.Optimizer }),
	nullableFloat64Col("time_to_target", func(r *Run) *float64 { return &r.TimeToTarget }),
	nullableInt64Col("updates_to_target", func(r *Run) *int64 { return &r.UpdatesToTarget }),
	nullableFloat64Col("loss_at_budget", func(r *Run) *float64 { return &r.LossAtBudget }),
	appended(optionalFloat64Col("target_loss", func(r *Run) *float64 { return &r.TargetLoss })),
	appended(nullableFloat64Col("held_out_loss", func(r *Run) *float64 { return &r.HeldOutLoss })),
	appended(optionalStringCol("selection_bound", func(r *Run) *string { return &r.SelectionBound })),
	appended(optionalStringCol("method_settings", func(r *Run) *string { return &r.MethodSettings })),
}}

// Methods whose settings only they have (Run.Delta, Run.Replicas).
const (
	MethodRPD      = "rpd"
	MethodLocalSGD = "localsgd"
)

// RPD's delay models (Run.DelayModel): the paper's uniform delays up to
// δ, uniform delays at PipeDream's mean delay (optim.UniformAtMean), and
// PipeDream's delays replayed stage by stage (optim.StageTrace).
const (
	DelayUniform          = "uniform"
	DelayPipeDreamMean    = "pipedream-mean"
	DelayPipeDreamProfile = "pipedream-profile"
)

func isRPD(r *Run) bool      { return r.Method == MethodRPD }
func isLocalSGD(r *Run) bool { return r.Method == MethodLocalSGD }

// RunSchema returns the Arrow schema of the runs table.
func RunSchema() *arrow.Schema { return runTable.schema() }

// WriteRuns writes rows to the Parquet file at path, sorted by run id. Run
// ids must be unique.
func WriteRuns(path string, rows []Run) error {
	seen := make(map[string]bool, len(rows))
	for i := range rows {
		if seen[rows[i].RunID] {
			return fmt.Errorf("results: %s: duplicate run id %q", path, rows[i].RunID)
		}
		seen[rows[i].RunID] = true
	}
	return writeTable(path, &runTable, rows)
}

// ReadRuns reads the runs table at path.
func ReadRuns(path string) ([]Run, error) { return readTable(path, &runTable) }
