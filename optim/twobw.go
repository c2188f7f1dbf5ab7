package optim

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// TwoBW is PipeDream-2BW (Narayanan et al., "Memory-Efficient
// Pipeline-Parallel DNN Training", ICML 2021, arXiv 2006.09503) replayed on
// a timeline: the microbatches are cut into groups of Accumulate
// consecutive ones (the last group may be shorter), each gradient is taken
// at its forward's stashed point as in PipeDream, and each stage updates
// once per group, after the group's last backward on that stage, with the
// mean of the group's gradients. Forwards read the stage's current block,
// so a group's forwards read the weights of however many groups have
// landed on the stage by then: VersionAges measures it on the timeline,
// which 2BW's design fixes at one version behind, w(t+1) = w(t) −
// γ·∇f(w(t−1)), with two versions kept (docs/methods.md). Accumulate 1 is
// PipeDream.
type TwoBW struct {
	Timeline *sim.Timeline
	// Accumulate is A, the microbatches per update; zero means S, the
	// stage count, 2BW's smallest group.
	Accumulate int
}

// Name returns "2bw".
func (TwoBW) Name() string { return "2bw" }

func (t TwoBW) replay(r *run) error {
	a := t.Accumulate
	if a == 0 {
		a = r.stages
	}
	if a < 1 {
		return fmt.Errorf("%w: 2bw accumulates %d microbatches per update, at least 1 needed", ErrSettings, a)
	}
	return replayAsync(r, t.Timeline, asyncRule{accumulate: a})
}

// Versions is what VersionAges measures of 2BW on a timeline.
type Versions struct {
	// Ages[s][m] is how many versions behind synchronous training the
	// block F(m, s) reads is: k − u, k = m/A the microbatch's group and u
	// the groups whose update has landed on stage s when the forward runs.
	// Synchronous SGD reads age 0; 2BW's design reads age 1.
	Ages [][]int
	// Kept[s] is the most versions of block s held at once: the current
	// one and those stashed by microbatches whose forward on s has run and
	// whose backward has not. 2BW's design keeps two.
	Kept []int
}

// VersionAges follows tl's forwards and weight-gradient backwards (B or
// W) in replay order, with one update per group of accumulate
// microbatches on each stage as TwoBW applies them, and measures the
// versions the forwards read and the versions held at once.
func VersionAges(tl *sim.Timeline, accumulate int) (Versions, error) {
	if tl == nil || tl.Table == nil {
		return Versions{}, fmt.Errorf("%w: no timeline", ErrTimeline)
	}
	stages := tl.Table.Stages()
	_, n, err := checkTimeline(tl, stages)
	if err != nil {
		return Versions{}, err
	}
	if accumulate < 1 {
		return Versions{}, fmt.Errorf("%w: 2bw accumulates %d microbatches per update, at least 1 needed", ErrSettings, accumulate)
	}
	v := Versions{Ages: make([][]int, stages), Kept: make([]int, stages)}
	landed, seen := make([]int, stages), make([]int, stages)
	held := make([]map[int]int, stages) // version → microbatches in flight that stashed it
	read := map[int]int{}               // (m, s) → version its forward read
	for s := range v.Ages {
		v.Ages[s] = make([]int, n)
		held[s] = map[int]int{}
	}
	for _, e := range replayOrder(tl) {
		a := e.Action
		s, k := a.Stage, a.Microbatch*stages+a.Stage
		switch a.Kind {
		case pipeline.Forward:
			if a.Microbatch < n {
				v.Ages[s][a.Microbatch] = a.Microbatch/accumulate - landed[s]
			}
			read[k] = landed[s]
			held[s][landed[s]]++
		case pipeline.Backward, pipeline.BackwardWeight:
			if u := read[k]; held[s][u] > 1 {
				held[s][u]--
			} else {
				delete(held[s], u)
			}
			seen[s]++
			if seen[s] == min((landed[s]+1)*accumulate, n) {
				landed[s]++
			}
		default:
			continue
		}
		kept := len(held[s])
		if !hasKey(held[s], landed[s]) {
			kept++ // the current version, which no forward in flight read
		}
		v.Kept[s] = max(v.Kept[s], kept)
	}
	return v, nil
}

func hasKey(m map[int]int, k int) bool {
	_, ok := m[k]
	return ok
}
