package optim

import "context"

// Settings configure one optimization run; the method and the objective
// are given to Run beside them.
type Settings struct {
	// StepSize is γ, the same for every block update.
	StepSize float64
	// Seed seeds every random stream of the run (gradient noise, RPD's
	// sampling); runs with the same settings and seed are identical.
	Seed uint64
	// LogEvery is the number of block updates between recorded losses;
	// zero records about LogPoints points over the run. The start and the
	// end of the run are always recorded.
	LogEvery int
	// LogPoints is the number of loss records a run takes when LogEvery is
	// zero (spec key log_points, train --log-points); zero means
	// DefaultRecords. A record costs a full-data loss (and
	// a validation loss where the objective has one), so a run whose
	// records cost more than its gradients asks for fewer. Fewer records
	// thin the curve, not the time to target (TargetLoss).
	LogPoints int
	// Recorder, if not nil, receives every record as it is taken.
	Recorder Recorder
	// Context, if not nil, ends the run early: once it is done, the run
	// returns its error within cancelEvery block updates (a few
	// milliseconds), rather than at its next record.
	Context context.Context
	// Progress, if not nil, is told how far the run is: done of its total
	// block updates, about every thousandth of the run (a run of hours
	// says where it is; train --progress prints it). It sees the run and
	// changes nothing in it.
	Progress func(done, total int)
	// Optimizer is the update rule every stage applies to its block; the
	// zero value is plain SGD at the constant step size StepSize.
	Optimizer Optimizer
	// TargetLoss, when positive, is the loss a run is timed to reach: the
	// first point of the target grid whose judged loss (the validation
	// loss when the objective has one, else the training loss) is at or
	// below it gives Result.TimeToTarget and UpdatesToTarget. The target
	// grid is the run's start, its end, and every ⌊K/DefaultRecords⌋ of
	// its K block updates, or the records when they are denser; where the
	// records are sparser, the points between them cost the judged loss
	// alone, and only until the target is reached. So LogPoints does not
	// change the time to target: it is the one DefaultRecords records give.
	TargetLoss float64
	// Budget, when positive, is the time budget of Result.LossAtBudget, in
	// the timeline's unit.
	Budget float64
}

// DefaultRecords is the number of loss records a run takes when
// Settings.LogEvery and Settings.LogPoints are zero.
const DefaultRecords = 100

// Record is the full-data loss of a run at one logged instant.
type Record struct {
	// Time is the simulated time at which the recorded state was reached,
	// in the timeline's unit (steps or seconds); for RPD, which has no
	// timeline, it is the iteration count.
	Time float64
	// Updates is the number of block updates applied.
	Updates int
	// Loss is f at the recorded point (for LocalSGD, at the replicas'
	// mean).
	Loss float64
	// ValidationLoss is the held-out loss at the same point when the
	// objective is objectives.Validated, NaN otherwise.
	ValidationLoss float64
}

// Recorder receives the records of a run as they are taken; an error
// stops the run and is returned by Run.
type Recorder interface {
	Record(Record) error
}

// RecorderFunc adapts a function to Recorder.
type RecorderFunc func(Record) error

// Record calls f.
func (f RecorderFunc) Record(r Record) error { return f(r) }

// DivergenceFactor is how many times its initial loss a run's loss may
// reach before the run counts as diverged.
const DivergenceFactor = 1e6

// Result is the outcome of a run.
type Result struct {
	// Method is the method's name ("pipedream", "sync", "localsgd", "rpd").
	Method string
	// StepSize and Seed repeat the settings the run used.
	StepSize float64
	Seed     uint64
	// Records holds the loss curve, starting with the initial point.
	Records []Record
	// FinalLoss is the loss at the end of the run, or the non-finite value
	// that stopped a diverged run.
	FinalLoss float64
	// Diverged reports that a recorded loss was not finite or exceeded
	// DivergenceFactor times the initial loss; the run stopped there.
	Diverged bool
	// TimeToTarget and UpdatesToTarget locate the first point of the
	// target grid at or below Settings.TargetLoss (resolved to that grid:
	// 1/DefaultRecords of the run, or the records when denser); NaN and -1
	// when the run never reached it or had no target.
	TimeToTarget    float64
	UpdatesToTarget int
	// LossAtBudget is the loss after the last update, in replay order, that
	// ends within Settings.Budget (the run's final loss if none ends after
	// it); NaN without a budget or for RPD, which has no time axis.
	LossAtBudget float64
	// Time is the simulated time the run covered (its timeline's makespan
	// times the iterations for sync SGD; the iteration count for RPD).
	Time float64
	// BlockUpdates is the number of block updates applied.
	BlockUpdates int
	// Microbatches is the number of microbatches the run consumed (RPD:
	// its iterations).
	Microbatches int
	// X is the final point (for LocalSGD, the replicas' mean).
	X []float64
}
