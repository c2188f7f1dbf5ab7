package results

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// ClaimsFile is the table of a figure's comparisons under the one
// significance rule, derived from its runs when it is plotted.
const ClaimsFile = "claims.parquet"

// Metrics a claim compares (the claims table's metric and selected_on).
// LossFinal is the training loss at the run's end (final_loss).
const (
	MetricHeldOut      = "held-out"       // held_out_loss: the loss at the end on data never trained on
	MetricTimeToTarget = "time-to-target" // time_to_target, in the cost model's unit
)

// Selection rules whose metric results must know to report it
// (experiments names them all; docs/methods.md, "Selection").
const (
	RuleBestFinalTraining = "best-final-training"
	RuleFastestToTarget   = "fastest-to-target"
)

// SelectionMetric is the metric a group of runs' step was selected on, as
// experiments.SelectSteps chooses it: time-to-target under
// RuleFastestToTarget, the training loss (LossFinal) under
// RuleBestFinalTraining or where no run of the group has a held-out loss
// (data read from files), MetricHeldOut otherwise.
func SelectionMetric(rule string, runs []*Run) string {
	switch rule {
	case RuleFastestToTarget:
		return MetricTimeToTarget
	case RuleBestFinalTraining:
		return LossFinal
	}
	for _, r := range runs {
		if finite(r.HeldOutLoss) {
			return MetricHeldOut
		}
	}
	return LossFinal
}

func finite(v float64) bool { return v != 0 && !math.IsNaN(v) && !math.IsInf(v, 0) }

// Claim is one row of the claims table: a method's selected runs against
// a baseline of its group (sync, and PipeDream for every other method),
// paired by replicate, on one metric, under the one
// significance rule (PairedDifferences). Every group reports the metric
// its steps were selected on and, beside it, the training loss and the
// held-out loss, and the time to target where a target was set, so that a
// figure shows what it selected on and the objective it did not.
type Claim struct {
	Experiment string
	Objective  string
	Optimizer  string
	CostModel  string
	Stages     int32
	// TotalMicrobatches is the runs' K; 0 under a time budget, where
	// each method runs the microbatches that fit in TimeBudget.
	TotalMicrobatches int32
	TimeBudget        float64
	N                 int32
	Noise             float64
	// Method is the method with its own settings where it has them
	// ("localsgd H=4", "rpd δ=60", "dc dc_lambda=0.04"), Baseline likewise.
	Method, Baseline string
	// Metric is what the rows compare; SelectedOn what the steps were
	// selected on (Metric == SelectedOn on the row a figure reports).
	Metric, SelectedOn string
	// Replicates are the seeds where both runs have the metric (neither
	// diverged; both reached the target for time-to-target), Agree those
	// whose difference has the mean's sign.
	Replicates, Agree int32
	// Mean is the mean of the method's value minus the baseline's, Low
	// and High its 95 % t interval; MethodMean and BaselineMean the two
	// means over the same seeds.
	Mean, Low, High          float64
	MethodMean, BaselineMean float64
	// Holds is Paired.Holds: at least MinSeeds seeds and an interval that
	// excludes zero.
	Holds bool
}

// Paired is the claim's row as the one significance rule's result.
func (c Claim) Paired() Paired {
	return Paired{N: int(c.Replicates), Agree: int(c.Agree), Mean: c.Mean, Low: c.Low, High: c.High}
}

var claimTable = table[Claim]{kind: "claims", columns: []column[Claim]{
	stringCol("experiment", func(c *Claim) *string { return &c.Experiment }),
	stringCol("objective", func(c *Claim) *string { return &c.Objective }),
	stringCol("optimizer", func(c *Claim) *string { return &c.Optimizer }),
	stringCol("cost_model", func(c *Claim) *string { return &c.CostModel }),
	int32Col("stages", func(c *Claim) *int32 { return &c.Stages }),
	int32Col("total_microbatches", func(c *Claim) *int32 { return &c.TotalMicrobatches }),
	optionalFloat64Col("time_budget", func(c *Claim) *float64 { return &c.TimeBudget }),
	int32Col("n", func(c *Claim) *int32 { return &c.N }),
	float64Col("noise", func(c *Claim) *float64 { return &c.Noise }),
	stringCol("method", func(c *Claim) *string { return &c.Method }),
	stringCol("baseline", func(c *Claim) *string { return &c.Baseline }),
	stringCol("metric", func(c *Claim) *string { return &c.Metric }),
	stringCol("selected_on", func(c *Claim) *string { return &c.SelectedOn }),
	int32Col("replicates", func(c *Claim) *int32 { return &c.Replicates }),
	int32Col("seeds_agree", func(c *Claim) *int32 { return &c.Agree }),
	nullableFloat64Col("diff_mean", func(c *Claim) *float64 { return &c.Mean }),
	nullableFloat64Col("diff_low", func(c *Claim) *float64 { return &c.Low }),
	nullableFloat64Col("diff_high", func(c *Claim) *float64 { return &c.High }),
	nullableFloat64Col("method_mean", func(c *Claim) *float64 { return &c.MethodMean }),
	nullableFloat64Col("baseline_mean", func(c *Claim) *float64 { return &c.BaselineMean }),
	boolCol("holds", func(c *Claim) *bool { return &c.Holds }),
}}

// ClaimSchema returns the Arrow schema of the claims table.
func ClaimSchema() *arrow.Schema { return claimTable.schema() }

// WriteClaims writes claims to the Parquet file at path.
func WriteClaims(path string, claims []Claim) error { return writeTable(path, &claimTable, claims) }

// ReadClaims reads the claims table at path.
func ReadClaims(path string) ([]Claim, error) { return readTable(path, &claimTable) }

// claimGroup is what makes two methods' runs comparable: everything but
// the method, its own settings, the step and the seed.
type claimGroup struct {
	experiment, objective, optimizer, cost string
	stages, microbatches, batch, n, d      int32
	budget, noise                          float64
}

// methodLabel is a run's method with the settings only it has.
func methodLabel(r *Run) string {
	switch r.Method {
	case MethodRPD:
		l := "rpd δ=" + strconv.Itoa(int(r.Delta))
		if r.DelayModel != "" && r.DelayModel != DelayUniform {
			l += " " + r.DelayModel
		}
		return l
	case MethodLocalSGD:
		return "localsgd H=" + strconv.Itoa(int(r.LocalSteps))
	}
	if r.MethodSettings != "" {
		return r.Method + " " + r.MethodSettings
	}
	return r.Method
}

// Claims pairs, in every group of comparable selected runs (Selected set,
// as experiments.SelectSteps leaves them), each method with the group's
// baselines, sync and PipeDream, where it has selected runs of them (a
// remedy against sync and against the PipeDream it corrects; a group with
// neither has no claims), by replicate, on the selection metric and
// the other metrics the runs have, and returns the rows sorted. Two
// selected runs of one method and replicate in a group are an error.
func Claims(runs []Run) ([]Claim, error) {
	type slot struct {
		g      claimGroup
		method string
	}
	sel := map[slot]map[int32]*Run{}
	methods := map[claimGroup][]string{}
	for i := range runs {
		r := &runs[i]
		if !r.Selected {
			continue
		}
		k := r.TotalMicrobatches
		if r.TimeBudget > 0 {
			k = 0 // under a budget each method runs the microbatches it fits
		}
		g := claimGroup{r.Experiment, r.Objective, r.Optimizer, r.CostModel, r.Stages, k, r.BatchSize, r.N, r.D, r.TimeBudget, r.Noise}
		sk := slot{g, methodLabel(r)}
		if sel[sk] == nil {
			sel[sk] = map[int32]*Run{}
			methods[g] = append(methods[g], sk.method)
		}
		if o := sel[sk][r.Replicate]; o != nil {
			return nil, fmt.Errorf("results: runs %s and %s: two selected %s runs at S = %d in one group, replicate %d",
				o.RunID, r.RunID, sk.method, r.Stages, r.Replicate)
		}
		sel[sk][r.Replicate] = r
	}
	var out []Claim
	for g, ms := range methods {
		for _, baseline := range []string{"sync", "pipedream"} {
			if !slices.Contains(ms, baseline) {
				continue
			}
			base := sel[slot{g, baseline}]
			for _, m := range ms {
				if m == baseline || (baseline == "pipedream" && m == "sync") {
					continue
				}
				out = append(out, claimsOf(g, m, baseline, sel[slot{g, m}], base)...)
			}
		}
	}
	slices.SortFunc(out, compareClaims)
	return out, nil
}

// claimsOf is one method's rows against its baseline: one per metric.
func claimsOf(g claimGroup, method, baseline string, runs, base map[int32]*Run) []Claim {
	// The metric the method's own group was selected on (a group is one
	// method's runs: experiments.SelectSteps).
	var own []*Run
	for _, r := range runs {
		own = append(own, r)
	}
	first := runs[slices.Min(slices.Collect(maps.Keys(runs)))]
	selectedOn := SelectionMetric(first.SelectionRule, own)
	metrics := []string{LossFinal, MetricHeldOut}
	if first.TargetLoss > 0 {
		metrics = append(metrics, MetricTimeToTarget)
	}
	var out []Claim
	for _, metric := range metrics {
		c := Claim{Experiment: g.experiment, Objective: g.objective, Optimizer: g.optimizer, CostModel: g.cost,
			Stages: g.stages, TotalMicrobatches: g.microbatches, TimeBudget: g.budget, N: g.n, Noise: g.noise,
			Method: method, Baseline: baseline, Metric: metric, SelectedOn: selectedOn}
		var diffs, ms, bs []float64
		for _, rep := range slices.Sorted(maps.Keys(runs)) {
			b := base[rep]
			if b == nil {
				continue
			}
			mv, ok1 := metricOf(runs[rep], metric)
			bv, ok2 := metricOf(b, metric)
			if !ok1 || !ok2 {
				continue
			}
			diffs, ms, bs = append(diffs, mv-bv), append(ms, mv), append(bs, bv)
		}
		if len(diffs) == 0 {
			continue // no pair has the metric: no held-out loss (data from files), no seed reached the target, RPD's time
		}
		p := PairedDifferences(diffs)
		c.Replicates, c.Agree = int32(p.N), int32(p.Agree)
		c.Mean, c.Low, c.High = p.Mean, p.Low, p.High
		c.MethodMean, c.BaselineMean = mean(ms), mean(bs)
		c.Holds = p.Holds()
		out = append(out, c)
	}
	return out
}

// metricOf is a run's value of a metric, and whether it has one.
func metricOf(r *Run, metric string) (float64, bool) {
	if r.Diverged() {
		return 0, false
	}
	var v float64
	switch metric {
	case LossFinal:
		v = r.FinalLoss
	case MetricHeldOut:
		v = r.HeldOutLoss
		if v == 0 {
			return 0, false // a table written before the column
		}
	case MetricTimeToTarget:
		if math.IsNaN(r.SimTime) {
			return 0, false // RPD: no clock, its "time" is not the others'
		}
		v = r.TimeToTarget
	}
	return v, !math.IsNaN(v) && !math.IsInf(v, 0)
}

func compareClaims(a, b Claim) int {
	// The columns' order, as the file's writer sorts its rows.
	return cmp.Or(cmp.Compare(a.Experiment, b.Experiment), cmp.Compare(a.Objective, b.Objective),
		cmp.Compare(a.Optimizer, b.Optimizer), cmp.Compare(a.CostModel, b.CostModel),
		cmp.Compare(a.Stages, b.Stages), cmp.Compare(a.TotalMicrobatches, b.TotalMicrobatches),
		cmp.Compare(a.TimeBudget, b.TimeBudget), cmp.Compare(a.N, b.N), cmp.Compare(a.Noise, b.Noise),
		cmp.Compare(a.Method, b.Method), cmp.Compare(a.Baseline, b.Baseline), cmp.Compare(a.Metric, b.Metric))
}
