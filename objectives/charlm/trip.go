package charlm

import (
	"fmt"

	"github.com/pipelab/pipelab/objectives"
)

var (
	_ objectives.Pipelined = (*Model)(nil)
	_ objectives.InputPass = (*trip)(nil)
)

// trip is one microbatch's pass through the model's stages. It holds
// stage s's activations (stageMemory, from the model's pool) from the
// stage's forward to its backward; the scratch memory is the model's, so
// a trip, like its Model, is not safe for concurrent use.
type trip struct {
	m               *Model
	act             activations    // views of the held stages' memory
	held            []*stageMemory // stage s's memory, nil when not held
	inputs, targets []int32
	forwards        int // stages run forward
	backwards       int // stages run backward
}

// NewPass returns one microbatch's trip, for a pipeline replay that runs
// the stages one at a time: stage s's backward reads the weights it is
// given with the activations of the forward. A trip holds each stage's
// activations from its forward to its backward, so it holds at most
// PassBytes, when it has run every forward and no backward yet.
func (m *Model) NewPass() objectives.Pass {
	n, e, layers := m.cfg.Batch*m.cfg.SeqLen, m.cfg.Embed, m.cfg.layers()
	return &trip{m: m, held: make([]*stageMemory, m.cfg.Stages), act: activations{
		stream: make([][]float64, layers+1),
		blocks: make([]blockCache, layers),
		grad:   make([]float64, n*e),
	}}
}

// PassBytes is the most memory one Pass holds: a batch's activations.
func (m *Model) PassBytes() int {
	return int(8 * activationFloats(m.cfg, len(m.vocab)))
}

// Forward runs stage s of batch b with block xs; stage 0 starts the trip.
func (t *trip) Forward(xs []float64, b, s int) {
	m := t.m
	if s == 0 {
		t.inputs, t.targets = m.batch(b)
		t.forwards, t.backwards = 0, 0
		for j := range t.held {
			t.release(j) // a trip left unfinished
		}
	}
	if s != t.forwards {
		panic(fmt.Sprintf("charlm: forward of stage %d after %d stages", s, t.forwards))
	}
	m.checkBlock("xs", xs, s)
	t.held[s] = m.acquireStage(s)
	m.wireStage(&t.act, s, t.held[s])
	m.forwardStage(&t.act, xs, t.inputs, t.targets, s)
	t.forwards++
}

// Backward writes into g the gradient of block s, the stage's weights
// read from xs, everything else from the trip's forward and the
// backwards of the stages after s.
func (t *trip) Backward(g, xs []float64, s int) {
	t.m.checkBlock("g", g, s)
	t.backward(g, xs, s)
}

// BackwardInput is Backward without block s's gradient: the weight
// gradients' products and sums are skipped, the gradient passed on to
// stage s-1 is the same to the bit.
func (t *trip) BackwardInput(xs []float64, s int) { t.backward(nil, xs, s) }

// backward runs stage s's backward, forming block s's gradient in g
// unless g is nil.
func (t *trip) backward(g, xs []float64, s int) {
	m := t.m
	if t.forwards != m.cfg.Stages || s != m.cfg.Stages-1-t.backwards {
		panic(fmt.Sprintf("charlm: backward of stage %d after %d forwards and %d backwards", s, t.forwards, t.backwards))
	}
	m.checkBlock("xs", xs, s)
	m.backwardStage(g, &t.act, xs, t.inputs, t.targets, s)
	t.release(s) // the backwards of stages s-1, .., 0 do not read it
	t.backwards++
}

// release returns stage s's memory to the model's pool, if the trip
// holds it.
func (t *trip) release(s int) {
	if t.held[s] != nil {
		t.m.releaseStage(s, t.held[s])
		t.held[s] = nil
		t.m.wireStage(&t.act, s, nil)
	}
}

// checkBlock panics on a block of the wrong length, a programming error
// of the caller.
func (m *Model) checkBlock(name string, v []float64, s int) {
	if want := m.offsets[s+1] - m.offsets[s]; len(v) != want {
		panic(fmt.Sprintf("charlm: len(%s) = %d, want block %d's %d", name, len(v), s, want))
	}
}
