package optim

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// TwoBWStageDelays is the per-stage delay profile of 2BW (TwoBW) replaying
// tl with groups of accumulate microbatches, in the unit RPD and PipeDream's
// delays share: block updates of the whole pipeline. 2BW's block updates
// are its landings, one per group and stage, in replay order (numbered
// k = 0, 1, ... as the group's last weight-gradient backward on the stage
// comes); the forward of microbatch m on stage s reads the block after j
// landings, j counted over every stage, and m's gradient lands with landing k:
// its delay is k − j, k being the landing its group's update is. With
// accumulate 1 every backward is a landing and this is PipeDream's delay
// k − j_k^(s) of the stage's own block (StageDelays' PerStage).
//
// PerStage[s] summarises the delays of stage s's microbatches whose group
// lands in the window (the window counts landings); its Rows counts those
// microbatches, accumulate per landing.
func TwoBWStageDelays(tl *sim.Timeline, accumulate int, w Window) ([]DelayStats, error) {
	if tl == nil || tl.Table == nil {
		return nil, fmt.Errorf("%w: no timeline", ErrTimeline)
	}
	if accumulate < 1 {
		return nil, fmt.Errorf("%w: 2bw accumulates %d microbatches per update, at least 1 needed", ErrSettings, accumulate)
	}
	stages := tl.Table.Stages()
	_, n, err := checkTimeline(tl, stages)
	if err != nil {
		return nil, err
	}
	groups := (n + accumulate - 1) / accumulate
	first := w.first(groups * stages)
	landings := 0
	landed, seen := make([]int, stages), make([]int, stages)
	read := map[int]int{}            // m·S + s → landings before F(m, s)
	pending := make([][]int, stages) // reads of the microbatches of stage s's open group
	own := make([]delayHistogram, stages)
	for _, e := range replayOrder(tl) {
		a := e.Action
		s, key := a.Stage, a.Microbatch*stages+a.Stage
		switch a.Kind {
		case pipeline.Forward:
			read[key] = landings
		case pipeline.Backward, pipeline.BackwardWeight:
			j, ok := read[key]
			if !ok {
				return nil, fmt.Errorf("%w: backward of microbatch %d on stage %d at %g before its forward", ErrTimeline, a.Microbatch, s, e.Start)
			}
			delete(read, key)
			pending[s] = append(pending[s], j)
			seen[s]++
			if seen[s] < min((landed[s]+1)*accumulate, n) {
				continue
			}
			if landings >= first {
				for _, j := range pending[s] {
					own[s].add(landings - j)
				}
			}
			pending[s] = pending[s][:0]
			landed[s]++
			landings++
		}
	}
	out := make([]DelayStats, stages)
	for s := range own {
		out[s] = own[s].stats(own[s].n)
	}
	return out, nil
}
