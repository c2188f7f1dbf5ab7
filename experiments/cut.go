package experiments

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pipelab/pipelab/optim"
)

// CutShortest is the spec's cut that ends every run at the shortest
// timeline among the spec's methods, as the PipeDream paper's notebook
// cuts its curves.
const CutShortest = "shortest"

// CutRival is one timeline a cut run is measured against: a method and,
// for LocalSGD, its H.
type CutRival struct {
	Method     string
	LocalSteps int
}

func (c CutRival) String() string {
	if methodOf(c.Method).Replay == optim.ReplayAveraging {
		return "localsgd/" + strconv.Itoa(c.LocalSteps)
	}
	return c.Method
}

// cutRivals lists the timelines of the spec's methods at stage count st,
// in spec order.
func (s *Spec) cutRivals(st int) []CutRival {
	var out []CutRival
	for _, m := range s.Methods {
		for _, v := range m.variants(st) {
			out = append(out, CutRival{Method: m.Name, LocalSteps: v.h})
		}
	}
	return out
}

func cutLabel(rivals []CutRival) string {
	parts := make([]string, len(rivals))
	for i, c := range rivals {
		parts[i] = c.String()
	}
	return strings.Join(parts, ",")
}

// validateCut checks the cut key: the word shortest, fixed microbatch
// counts, only methods with a timeline, and no log_every of its own.
func (s *Spec) validateCut(v validator) error {
	if s.Cut == "" {
		return nil
	}
	switch {
	case s.Cut != CutShortest:
		return v.fail(fmt.Sprintf("unknown cut %q (known: %s)", s.Cut, CutShortest), "cut")
	case len(s.Budget) > 0:
		return v.fail("a cut needs fixed microbatches, not a budget", "cut")
	case s.LogEvery != 0:
		return v.fail("a cut records every block update; leave log_every out", "log_every")
	}
	for i, m := range s.Methods {
		if !methodOf(m.Name).OwnsTable() {
			return v.fail(fmt.Sprintf("a cut compares timelines; %s has none of its own (cut takes pipedream and localsgd)", m.Name),
				"methods", i, "name")
		}
	}
	return nil
}

// cutTime is the end of the shortest of the run's rival timelines: each
// rival's duration with the run's N, S and cost model (LocalSGD's with its
// averagings).
func (c *Timelines) cutTime(r Run) (float64, error) {
	t := math.Inf(1)
	for _, rival := range r.Cut {
		rr := r
		rr.LocalSteps = rival.LocalSteps
		pt, err := c.timelineFor(rival.Method, rr)
		if err != nil {
			return 0, err
		}
		t = min(t, pt.time)
	}
	return t, nil
}

var errCut = errors.New("experiments: the run reached its cut")

// replayCut replays the run up to time cut and returns its records up to
// that time: every block update is recorded, so the last record is the
// state at the cut; the replay stops at the first record past it.
func replayCut(ctx context.Context, r Run, set optim.Settings, run func(optim.Settings) (*optim.Result, error), cut float64) (*optim.Result, error) {
	var recs []optim.Record
	set.LogEvery = 1
	set.Recorder = optim.RecorderFunc(func(rec optim.Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if rec.Time > cut {
			return errCut
		}
		recs = append(recs, rec)
		return nil
	})
	res, err := run(set)
	if err != nil && !errors.Is(err, errCut) {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("run %s: no record before the cut at %g", r.ID, cut)
	}
	last := recs[len(recs)-1]
	out := &optim.Result{FinalLoss: last.Loss, BlockUpdates: last.Updates, Time: cut, Records: thin(recs),
		TimeToTarget: math.NaN(), UpdatesToTarget: -1, LossAtBudget: math.NaN()}
	// Every update is recorded here, so the target is met at the first
	// record at or below it (judged on the validation loss where there is one).
	if set.TargetLoss > 0 {
		for _, rec := range recs {
			judged := rec.Loss
			if !math.IsNaN(rec.ValidationLoss) {
				judged = rec.ValidationLoss
			}
			if judged <= set.TargetLoss {
				out.TimeToTarget, out.UpdatesToTarget = rec.Time, rec.Updates
				break
			}
		}
	}
	if res != nil {
		out.Diverged = res.Diverged
	}
	if math.IsNaN(last.Loss) || math.IsInf(last.Loss, 0) {
		out.Diverged = true
	}
	return out, nil
}

// thin keeps about optim.DefaultRecords of recs, evenly in block updates,
// and always the first and the last.
func thin(recs []optim.Record) []optim.Record {
	every := max(1, recs[len(recs)-1].Updates/optim.DefaultRecords)
	var out []optim.Record
	next := 0
	for i, rec := range recs {
		if i == len(recs)-1 || rec.Updates >= next {
			out = append(out, rec)
			next = (rec.Updates/every + 1) * every
		}
	}
	return out
}
