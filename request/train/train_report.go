package train

import (
	"encoding/json"
	"fmt"
	"github.com/pipelab/pipelab/request"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/results"
)

// Report is what "pipelab train" prints. Times are in the clock's
// unit: steps under unit time, seconds under the GPU model, iterations for
// rpd.
type Report struct {
	Objective         string       `json:"objective"`
	Method            string       `json:"method"`
	Optimizer         string       `json:"optimizer"`
	Kind              string       `json:"kind,omitempty"`     // --kind, or the method's default family
	Schedule          string       `json:"schedule,omitempty"` // --schedule, the CSV file replayed
	Cost              string       `json:"cost_model"`
	Stages            int          `json:"stages"`
	TotalMicrobatches int          `json:"total_microbatches"`
	TimeBudget        float64      `json:"time_budget,omitempty"`
	Overshoot         float64      `json:"overshoot"`
	SimTime           float64      `json:"sim_time"`
	BlockUpdates      int          `json:"block_updates"`
	StepSize          float64      `json:"step_size"`
	Seed              uint64       `json:"seed"`
	FinalLoss         FiniteOrNil  `json:"final_loss"`
	ValidationLoss    FiniteOrNil  `json:"validation_loss"`
	Outcome           string       `json:"outcome"` // ok or diverged, as the runs table's outcome
	TargetLoss        float64      `json:"target_loss,omitempty"`
	TimeToTarget      FiniteOrNil  `json:"time_to_target"`
	UpdatesToTarget   *int         `json:"updates_to_target"`
	LossAtBudget      FiniteOrNil  `json:"loss_at_budget"`
	Curve             []CurvePoint `json:"curve"`
}

type CurvePoint struct {
	SimTime        float64     `json:"sim_time"`
	BlockUpdates   int         `json:"block_updates"`
	Loss           FiniteOrNil `json:"loss"`
	ValidationLoss FiniteOrNil `json:"validation_loss"`
}

// FiniteOrNil is a float that JSON writes as null when it is not finite
// (a diverged loss, a target never reached, a loss not measured), which
// JSON numbers cannot hold.
type FiniteOrNil float64

func (v FiniteOrNil) MarshalJSON() ([]byte, error) {
	if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(v))
}

// report gathers what the run did.
func (f *trainFlags) report(res *experiments.Trained) Report {
	rep := Report{Objective: f.objective, Method: f.method, Optimizer: f.optimizer, Cost: f.costName(res),
		Stages: res.Stages, TimeBudget: f.timeBudget, Overshoot: res.Overshoot, StepSize: f.stepSize, Seed: f.seed,
		SimTime: res.Time, BlockUpdates: res.BlockUpdates, TotalMicrobatches: res.Result.Microbatches,
		FinalLoss: FiniteOrNil(res.FinalLoss), ValidationLoss: FiniteOrNil(math.NaN()), Outcome: results.OutcomeOK,
		TargetLoss: f.targetLoss, TimeToTarget: FiniteOrNil(res.TimeToTarget), LossAtBudget: FiniteOrNil(res.LossAtBudget)}
	if f.methodDesc().Replay == optim.ReplaySampled && f.delays != "exact" {
		rep.Cost = "iterations"
	}
	if res.Diverged {
		rep.Outcome = results.OutcomeDiverged
	} else {
		rep.SimTime += res.Extra // LocalSGD's last averaging, as a sweep's sim_time
	}
	if res.UpdatesToTarget >= 0 {
		u := res.UpdatesToTarget
		rep.UpdatesToTarget = &u
	}
	if f.schedule != "" {
		rep.Schedule = f.schedule
	} else {
		rep.Kind = f.tableName()
	}
	for _, r := range res.Records {
		rep.Curve = append(rep.Curve, CurvePoint{SimTime: r.Time, BlockUpdates: r.Updates, Loss: FiniteOrNil(r.Loss), ValidationLoss: FiniteOrNil(r.ValidationLoss)})
	}
	if n := len(res.Records); n > 0 {
		rep.ValidationLoss = FiniteOrNil(res.Records[n-1].ValidationLoss)
	}
	return rep
}

// WriteText prints the report as "pipelab train" does without --format
// json.
func (rep Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "objective:     %s\nmethod:        %s\nstages:        %d\ntotal microbatches: %d\n", rep.Objective, rep.Method, rep.Stages, rep.TotalMicrobatches)
	if rep.Cost == "iterations" {
		fmt.Fprintf(&b, "iterations:    %g", rep.SimTime)
		if rep.TimeBudget > 0 {
			fmt.Fprintf(&b, " (pipedream's N·S for budget %g, pipedream overshoot %g)", rep.TimeBudget, rep.Overshoot)
		}
	} else {
		label := "time steps:  "
		if rep.Cost != "unit" {
			label = "time:        "
		}
		fmt.Fprintf(&b, "%s  %s", label, clockTime(rep.SimTime))
		if rep.TimeBudget > 0 {
			fmt.Fprintf(&b, " (budget %g, overshoot %g)", rep.TimeBudget, rep.Overshoot)
		}
	}
	fmt.Fprintf(&b, "\nblock updates: %d\nstep size:     %g\nfinal loss:    %.6g\n", rep.BlockUpdates, rep.StepSize, float64(rep.FinalLoss))
	if v := float64(rep.ValidationLoss); !math.IsNaN(v) {
		fmt.Fprintf(&b, "validation loss: %.6g\n", v)
	}
	fmt.Fprintf(&b, "optimizer:     %s\n", rep.Optimizer)
	if table := request.TableName(rep.Kind, rep.Schedule); table != "" {
		fmt.Fprintf(&b, "schedule:      %s\n", table)
	}
	fmt.Fprintf(&b, "clock:         %s\n", rep.Cost)
	if rep.TimeBudget > 0 && rep.Cost != "iterations" {
		fmt.Fprintf(&b, "at budget:     %.6g\n", float64(rep.LossAtBudget))
	}
	if rep.TargetLoss > 0 {
		if rep.UpdatesToTarget == nil {
			fmt.Fprintf(&b, "target %g:   not reached\n", rep.TargetLoss)
		} else {
			fmt.Fprintf(&b, "target %g:   time %s, %d block updates\n", rep.TargetLoss, clockTime(float64(rep.TimeToTarget)), *rep.UpdatesToTarget)
		}
	}
	fmt.Fprintf(&b, "outcome:       %s\ncurve:\n", rep.Outcome)
	validated := !math.IsNaN(float64(rep.ValidationLoss))
	fmt.Fprintf(&b, "  %10s %10s %14s", "time", "updates", "loss")
	if validated {
		fmt.Fprintf(&b, " %14s", "validation")
	}
	b.WriteByte('\n')
	for _, p := range rep.Curve {
		fmt.Fprintf(&b, "  %10s %10d %14.6g", clockTime(p.SimTime), p.BlockUpdates, float64(p.Loss))
		if validated {
			fmt.Fprintf(&b, " %14.6g", float64(p.ValidationLoss))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// clockTime prints a time of the run's clock: whole steps exactly, seconds
// to six significant digits.
func clockTime(t float64) string {
	if t == math.Trunc(t) && math.Abs(t) < 1e15 {
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	return strconv.FormatFloat(t, 'g', 6, 64)
}
