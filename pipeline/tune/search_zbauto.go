package tune

import (
	"fmt"
	"math"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// shapeTable generates the search's schedule for its shape. zb-auto
// depends on the costs, so it gets ZB-H1 of the same shape, which shares
// its stages, placement and forwards, until tableFor builds it for a
// partition.
func (s *search) shapeTable() (*pipeline.Table, error) {
	sh := pipeline.Shape{Ranks: s.p.Ranks, Microbatches: s.mbs, Chunks: s.sched.Chunks}
	if s.sched.Family != ZBAutoFamily {
		return pipeline.Generate(s.sched.Family, sh)
	}
	if sh.Chunks > 1 {
		return nil, fmt.Errorf("the automatic schedule places one stage per rank, so chunks must be 1, got %d", sh.Chunks)
	}
	return pipeline.Generate("zb-h1", sh)
}

// tableFor returns the table the search times under g, the GPU model of
// one partition: the search's own, or for zb-auto the automatic schedule
// built from g's stage times, with the largest activation limit the
// memory limit leaves on every rank (zbAutoLimit).
func (s *search) tableFor(g cost.StageModel) (*pipeline.Table, error) {
	if s.sched.Family != ZBAutoFamily {
		return s.table, nil
	}
	p := s.p.Ranks
	auto, err := ZBAuto(ZBAutoProblem{
		Stages: StageTimesOf(g, p), Microbatches: s.mbs,
		MaxActivations: zbAutoLimit(g, p, s.mbs, s.p.MemoryBytes), WeightGradShare: WeightGradShareOf(g, p),
		BySpan: s.p.PostValidation,
	})
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	s.sims += auto.Simulations
	return auto.Table, nil
}

// zbAutoLimit is the most microbatches of activations (in M_B) that fit
// beside every rank's static bytes within the memory limit, at least 1
// (a candidate that then does not fit is reported as such) and at most
// the microbatch count.
func zbAutoLimit(mem cost.Memory, p, microbatches int, limit float64) int {
	most := microbatches
	for s := range p {
		if mb := mem.ActivationBytes(s); mb > 0 {
			most = min(most, int(math.Floor((limit-mem.StaticBytes(s))/mb)))
		}
	}
	return max(most, 1)
}
