package optim

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// LocalSGD replays a ReplicaAveraging timeline (docs/reference.md §1.5): R
// replicas (the table's Replicas) each run plain SGD, microbatch m on
// replica m mod R with batch m mod Batches, reading and updating its own
// blocks as PipeDream does. After a time step, each complete round of R·H
// microbatches (H the table's LocalSteps) whose microbatches all finished B
// on stage 0 is averaged stage-wise and broadcast to every replica; a
// trailing partial round is never averaged. The loss is that of the
// replicas' mean.
type LocalSGD struct {
	Timeline *sim.Timeline
}

// Name returns "localsgd".
func (LocalSGD) Name() string { return "localsgd" }

func (l LocalSGD) replay(r *run) error {
	backwards, microbatches, err := checkTimeline(l.Timeline, r.stages)
	if err != nil {
		return err
	}
	t := l.Timeline.Table
	if t.Update != pipeline.ReplicaAveraging || t.Replicas < 1 || t.LocalSteps < 1 {
		return fmt.Errorf("%w: LocalSGD needs a replica-averaging table with Replicas and LocalSteps ≥ 1 (got %v, R = %d, H = %d)",
			ErrTimeline, t.Update, t.Replicas, t.LocalSteps)
	}
	r.res.Microbatches = microbatches
	R, round := t.Replicas, t.Replicas*t.LocalSteps
	replicas := make([][]float64, R)
	for i := range replicas {
		replicas[i] = r.obj.Init()
	}
	mean := make([]float64, r.obj.Dim())
	average := func() []float64 {
		clear(mean)
		for _, x := range replicas {
			for j, v := range x {
				mean[j] += v
			}
		}
		for j := range mean {
			mean[j] /= float64(R)
		}
		return mean
	}
	if err := r.begin(backwards, average(), R); err != nil {
		return err
	}
	finished := map[int]int{} // round → microbatches done on stage 0
	due := false              // a round completed in the current time step
	ps := newPasses(r)
	events := replayOrder(l.Timeline)
	for i, e := range events {
		a := e.Action
		switch a.Kind {
		case pipeline.Forward:
			if err := ps.forward(a.Microbatch, a.Stage, r.block(replicas[a.Microbatch%R], a.Stage)); err != nil {
				return err
			}
		case pipeline.BackwardInput:
			if err := ps.ready(a.Microbatch, a.Stage); err != nil {
				return err
			}
		case pipeline.Backward, pipeline.BackwardWeight:
			g, err := ps.backward(a.Microbatch, a.Stage, nil, r.noise)
			if err != nil {
				return err
			}
			r.landing(e.End, average)
			r.opt.step(r.block(replicas[a.Microbatch%R], a.Stage), g, a.Microbatch%R, a.Stage, float64(R), 1)
			if a.Stage == 0 {
				k := a.Microbatch / round
				if finished[k]++; finished[k] == round {
					due = true
				}
			}
			if err := r.advance(1, e.End, average); err != nil || r.stopped {
				return err
			}
		}
		if due && (i+1 == len(events) || events[i+1].Start > e.Start) {
			// Averaging leaves the mean, hence the tracked loss, unchanged.
			m := average()
			for _, x := range replicas {
				copy(x, m)
			}
			due = false
		}
	}
	return r.finish(endTime(l.Timeline), average())
}
