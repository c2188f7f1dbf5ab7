package optim

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/objectives/charlm"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// pipelinedPD is PipeDream replayed through an objective's passes
// (objectives.Pipelined), the path the no-stash rules take.
type pipelinedPD struct{ Timeline *sim.Timeline }

func (pipelinedPD) Name() string { return "pipedream" }
func (p pipelinedPD) replay(r *run) error {
	return replayAsync(r, p.Timeline, asyncRule{pipelined: true})
}

func smallLM(t testing.TB, stages int) *charlm.Model {
	t.Helper()
	text, _ := charlm.MarkovCorpus(1, 4000)
	cfg := charlm.DefaultConfig()
	cfg.Stages, cfg.Embed, cfg.Heads, cfg.SeqLen, cfg.Batch, cfg.EvalBatches, cfg.ValidationBatches = stages, 8, 2, 8, 2, 1, 1
	lm, err := charlm.New(cfg, text)
	if err != nil {
		t.Fatal(err)
	}
	return lm
}

// split cuts every B of tl into an I on the first half of its time and
// a W on the second.
func split(tl *sim.Timeline) *sim.Timeline {
	out := &sim.Timeline{Table: tl.Table}
	for _, e := range tl.Events {
		if e.Action.Kind != pipeline.Backward {
			out.Events = append(out.Events, e)
			continue
		}
		i, w := e, e
		i.Action.Kind, i.End = pipeline.BackwardInput, (e.Start+e.End)/2
		w.Action.Kind, w.Start = pipeline.BackwardWeight, (e.Start+e.End)/2
		out.Events = append(out.Events, i, w)
	}
	sim.SortEvents(out.Events)
	return out
}

// A replay that takes the LM's gradients stage by stage through passes,
// each backward reading the stash, is PipeDream with one full gradient
// per microbatch, bit for bit: on the 1F1B grid, on it with every B
// split into I and W (the stage's gradient then taken at its I), and on
// ZB-H1's table, for SGD and Adam.
func TestPipelinedReplayEqualsPipeDream(t *testing.T) {
	lm := smallLM(t, 4)
	grid := generate(t, "pipedream", pipeline.Shape{Ranks: 4, Microbatches: 12})
	zb := generate(t, "zb-h1", pipeline.Shape{Ranks: 4, Microbatches: 12})
	for _, alg := range []Algorithm{SGD, Adam} {
		set := Settings{StepSize: 0.01, LogEvery: 8, Optimizer: Optimizer{Algorithm: alg}}
		for name, tl := range map[string]*sim.Timeline{"1f1b": grid, "1f1b split": split(grid), "zb-h1": zb} {
			identicalResults(t, name+" "+string(alg), mustRun(t, lm, PipeDream{Timeline: tl}, set), mustRun(t, lm, pipelinedPD{Timeline: tl}, set))
		}
	}
}

// Without stashing the LM's backward reads the block current at its
// time. Cut into I and W with nothing of the stage's own between them,
// the block read at the I is the one the W would have read: pd-nostash
// and PipeMare replay the split table as the unsplit one, bit for bit.
func TestNoStashSplitBackwardOnTheLM(t *testing.T) {
	lm := smallLM(t, 3)
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 3, Microbatches: 12})
	set := Settings{StepSize: 0.05, Optimizer: Optimizer{Algorithm: Adam}}
	for _, pair := range [][2]Method{
		{PipeDreamNoStash{Timeline: tl}, PipeDreamNoStash{Timeline: split(tl)}},
		{PipeMare{Timeline: tl, Decay: 0.5}, PipeMare{Timeline: split(tl), Decay: 0.5}},
	} {
		identicalResults(t, pair[0].Name()+" split", mustRun(t, lm, pair[0], set), mustRun(t, lm, pair[1], set))
	}
}

// hugePasses is an LM whose passes claim a GiB each.
type hugePasses struct{ *charlm.Model }

func (hugePasses) PassBytes() int { return 1 << 30 }

// A table that keeps more microbatches in flight than MaxInFlightBytes
// of activations allows is refused before anything runs, not run out of
// memory: GPipe's table of 5 microbatches keeps all 5 in flight.
func TestPipelinedReplayBoundsItsMemory(t *testing.T) {
	lm := hugePasses{smallLM(t, 3)}
	tl := generate(t, "gpipe", pipeline.Shape{Ranks: 3, Microbatches: 5})
	_, err := Run(lm, PipeDreamNoStash{Timeline: tl}, Settings{StepSize: 0.01})
	if !errors.Is(err, ErrTimeline) || !strings.Contains(err.Error(), "5 microbatches in flight") {
		t.Fatalf("error %v, want ErrTimeline for 5 microbatches in flight", err)
	}
	tl = generate(t, "gpipe", pipeline.Shape{Ranks: 3, Microbatches: 4})
	if _, err := Run(lm, PipeDreamNoStash{Timeline: tl}, Settings{StepSize: 0.01}); err != nil {
		t.Fatalf("4 GiB in flight: %v", err)
	}
}

// gradientOnly hides the LM's passes: the replays then take one full
// Gradient per backward, the independent computation the passes are
// checked against.
type gradientOnly struct{ m *charlm.Model }

func (g gradientOnly) Dim() int                           { return g.m.Dim() }
func (g gradientOnly) Blocks() []int                      { return g.m.Blocks() }
func (g gradientOnly) Batches() int                       { return g.m.Batches() }
func (g gradientOnly) Init() []float64                    { return g.m.Init() }
func (g gradientOnly) Loss(x []float64) float64           { return g.m.Loss(x) }
func (g gradientOnly) ValidationLoss(x []float64) float64 { return g.m.ValidationLoss(x) }
func (g gradientOnly) Gradient(d, x []float64, b int, noise *rand.Rand) {
	g.m.Gradient(d, x, b, noise)
}

// RPD's stale block gradient through a pass (backwards stopped at the
// stepping stage) is the block of the full gradient at the assembled
// point, bit for bit, with momentum and with Adam.
func TestRPDThroughPassesEqualsFullGradients(t *testing.T) {
	lm := smallLM(t, 4)
	rpd := RPD{Delays: Uniform{Stages: 4, Delta: DefaultDelta(4), Microbatches: 10}}
	for _, alg := range []Algorithm{Momentum, Adam} {
		set := Settings{StepSize: 0.01, Seed: 3, LogEvery: 7, Optimizer: Optimizer{Algorithm: alg, Momentum: 0.9}}
		identicalResults(t, "rpd "+string(alg), mustRun(t, gradientOnly{lm}, rpd, set), mustRun(t, lm, rpd, set))
	}
}
