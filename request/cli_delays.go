package request

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

const delaysDescription = `
Replays a schedule as asynchronous PipeDream (every backward updates its
stage's block at once) and measures the delay k - j_k^(s) of every block
read by every block update (docs/reference.md §1.3): updates are the
backwards in order of time step then stage, and j_k^(s) counts the updates
before the forward of the same microbatch on stage s.

The schedule is a generated family (--kind, pipedream by default, with
--ranks P, one stage per rank, and --total-microbatches N, N defaulting to 10P;
§1.2 for pipedream; other families take --microbatches M of one iteration)
or a PyTorch schedule CSV (--schedule), timed at unit cost (every F and B
one step, messages free; pipedream and localsgd place every action in
the step it runs, so their grid is that timeline). A table that splits the
backward into I and W (zb-h1, zb-v, ...) is accepted: the block update is
the W, the weight-gradient backward, and a full B updates at once.

Statistics are over the second half of the updates (the steady state):
the maximum, which is ⌊S² - S/2⌋ for pipedream, the mean and the 10th
percentile (linearly interpolated), over every stage's block; max_all is
the maximum over every update, warm-up and drain included. Per stage:
the delay of the stage's own block at its updates in the steady state,
the updates between the microbatch's forward there and its backward.`

// DelaysReport is what "pipelab delays" prints.
type DelaysReport struct {
	Kind         string             `json:"kind,omitempty"`     // --kind, the generated family
	Schedule     string             `json:"schedule,omitempty"` // --schedule, the CSV file read
	Stages       int                `json:"stages"`
	Microbatches int                `json:"microbatches,omitempty"`       // M of one iteration
	Total        int                `json:"total_microbatches,omitempty"` // N of pipedream and localsgd
	TimeSteps    float64            `json:"time_steps"`
	Updates      int                `json:"block_updates"`
	Max          int                `json:"max"`
	Mean         float64            `json:"mean"`
	P10          float64            `json:"p10"`
	MaxAll       int                `json:"max_all"`
	PerStage     []StageDelayReport `json:"per_stage"`
}

// StageDelayReport is one stage's own-block delays in the steady state.
type StageDelayReport struct {
	Stage   int     `json:"stage"`
	Updates int     `json:"block_updates"`
	Max     int     `json:"max"`
	Mean    float64 `json:"mean"`
	P10     float64 `json:"p10"`
}

type delaysFlags struct {
	shape    ShapeFlags
	schedule string
	output   OutputFlag
}

// DelaysRequest is one "pipelab delays": a table (generated, or read
// from a CSV) to replay as asynchronous PipeDream. Kind and Schedule name
// it in the report; Grid says the table is its own unit-time timeline
// (pipedream and localsgd place every action in the step it runs), else
// it is simulated at unit cost; Total reports its microbatches as the N
// of an asynchronous family.
type DelaysRequest struct {
	Kind, Schedule string
	Table          *pipeline.Table
	Grid, Total    bool
}

// DecodeDelays decodes delays' flags into its request, with --format. A
// flag error's usage goes to stderr.
func DecodeDelays(args []string, stderr io.Writer) (DelaysRequest, string, error) {
	fs := NewFlags("delays", "[--kind KIND] --ranks P [--total-microbatches N | --microbatches M] | --schedule FILE.csv [--format text|json]", delaysDescription, stderr)
	var f delaysFlags
	f.shape.Register(fs)
	fs.StringVar(&f.schedule, "schedule", "", "a PyTorch schedule CSV instead of --kind")
	MarkFiles(fs, ReadsFile, nil, "schedule")
	f.output.Register(fs)
	if err := ParseFlags(fs, args); err != nil {
		return DelaysRequest{}, "", err
	}
	f.shape.Set = SetFlags(fs)
	if err := f.check(fs.Args(), f.shape.Set); err != nil {
		return DelaysRequest{}, "", FlagProblem(fs, stderr, "delays", err)
	}
	t, err := f.table()
	if err != nil {
		return DelaysRequest{}, "", err
	}
	generated := f.schedule == ""
	return DelaysRequest{Kind: f.shape.Kind, Schedule: f.schedule, Table: t,
		Grid:  generated && (f.shape.Kind == "pipedream" || f.shape.Kind == "localsgd"),
		Total: generated && f.shape.Async()}, f.output.Format, nil
}

// Delays replays the request's table as asynchronous PipeDream and
// measures its weight delays, overall and per stage.
func Delays(ctx context.Context, req DelaysRequest) (DelaysReport, error) {
	if req.Table == nil {
		return DelaysReport{}, badInputf("delays: no table")
	}
	t := req.Table
	tl := sim.FromGrid(t)
	if !req.Grid {
		var err error
		if tl, err = sim.Simulate(t, cost.Unit{}, sim.Options{Context: ctx}); err != nil {
			return DelaysReport{}, err
		}
	}
	if err := ctx.Err(); err != nil {
		return DelaysReport{}, err
	}
	p, err := optim.StageDelays(tl, optim.Steady)
	if err != nil {
		return DelaysReport{}, err
	}
	rep := DelaysReport{Kind: req.Kind, Schedule: req.Schedule, Stages: p.Stages, TimeSteps: p.TimeSteps,
		Updates: p.Updates, Max: p.Total.Max, Mean: p.Total.Mean, P10: p.Total.P10, MaxAll: p.MaxAll}
	if req.Total {
		rep.Total = t.Microbatches
	} else {
		rep.Microbatches = t.Microbatches
	}
	for s, st := range p.PerStage {
		rep.PerStage = append(rep.PerStage, StageDelayReport{Stage: s, Updates: st.Rows, Max: st.Max, Mean: st.Mean, P10: st.P10})
	}
	return rep, nil
}

// check names the flag that is wrong and fills in the defaults: the
// pipedream family and 10S microbatches when the count is left out (a count
// given as 0 is out of range).
func (f *delaysFlags) check(rest []string, set map[string]bool) error {
	if err := NoArguments(rest); err != nil {
		return err
	}
	if f.schedule != "" {
		if f.shape.Kind != "" || set["ranks"] || set["microbatches"] || set["total-microbatches"] || set["chunks"] || set["local-steps"] {
			return fmt.Errorf("--schedule reads the shape from the file: drop --kind, --ranks, --microbatches, --total-microbatches, --chunks and --local-steps")
		}
		return f.output.Check()
	}
	if f.shape.Kind == "" {
		f.shape.Kind = "pipedream"
	}
	if err := f.shape.ParseKind(set); err != nil {
		return err
	}
	if err := Required("ranks", f.shape.Ranks, set); err != nil {
		return err
	}
	if f.shape.Async() && !set["total-microbatches"] {
		f.shape.TotalMicrobatches = 10 * f.shape.Ranks
	} else if !f.shape.Async() && !set["microbatches"] {
		f.shape.Microbatches = 10 * f.shape.Ranks
	}
	if err := f.shape.Check(); err != nil {
		return err
	}
	return f.output.Check()
}

// table generates or reads the schedule.
func (f *delaysFlags) table() (*pipeline.Table, error) {
	if f.schedule == "" {
		f.shape.CellBytes = ReplayCellBytes
		return f.shape.Generate()
	}
	return ReadScheduleFile(f.schedule)
}

// WriteText prints the report as "pipelab delays" does without --format
// json.
func (rep DelaysReport) WriteText(w io.Writer) error {
	var b strings.Builder
	count := fmt.Sprintf("microbatches:  %d", rep.Microbatches)
	if rep.Total > 0 {
		count = fmt.Sprintf("total microbatches: %d", rep.Total)
	}
	fmt.Fprintf(&b, "stages:        %d\n%s\ntime steps:    %g\nblock updates: %d\n"+
		"steady state (second half of the updates):\n  max:  %d\n  mean: %.4f\n  p10:  %.4g\nmax over all updates: %d\n",
		rep.Stages, count, rep.TimeSteps, rep.Updates, rep.Max, rep.Mean, rep.P10, rep.MaxAll)
	b.WriteString("\nown block per stage, steady state:\nstage  updates     max       mean      p10\n")
	for _, s := range rep.PerStage {
		fmt.Fprintf(&b, "%5d  %7d  %6d  %9.4f  %7.4g\n", s.Stage, s.Updates, s.Max, s.Mean, s.P10)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
