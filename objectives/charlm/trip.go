package charlm

import (
	"fmt"

	"pipelab/objectives"
)

var _ objectives.Pipelined = (*Model)(nil)

// trip is one microbatch's pass through the model's stages with its own
// activations; the scratch memory is the model's, so a trip, like its
// Model, is not safe for concurrent use.
type trip struct {
	m               *Model
	act             activations
	inputs, targets []int32
	forwards        int // stages run forward
	backwards       int // stages run backward
}

// NewPass returns the activation memory of one microbatch in flight
// (PassBytes of it), for a pipeline replay that runs the stages one at a
// time: stage s's backward reads the weights it is given with the
// activations of the forward.
func (m *Model) NewPass() objectives.Pass { return &trip{m: m, act: m.newActivations()} }

// PassBytes is the memory of one Pass: a batch's activations.
func (m *Model) PassBytes() int {
	return int(8 * activationFloats(m.cfg, len(m.vocab)))
}

// Forward runs stage s of batch b with block xs; stage 0 starts the trip.
func (t *trip) Forward(xs []float64, b, s int) {
	m := t.m
	if s == 0 {
		t.inputs, t.targets = m.batch(b)
		t.forwards, t.backwards = 0, 0
	}
	if s != t.forwards {
		panic(fmt.Sprintf("charlm: forward of stage %d after %d stages", s, t.forwards))
	}
	m.checkBlock("xs", xs, s)
	m.forwardStage(&t.act, xs, t.inputs, t.targets, s)
	t.forwards++
}

// Backward writes into g the gradient of block s, the stage's weights
// read from xs, everything else from the trip's forward and the
// backwards of the stages after s.
func (t *trip) Backward(g, xs []float64, s int) {
	m := t.m
	if t.forwards != m.cfg.Stages || s != m.cfg.Stages-1-t.backwards {
		panic(fmt.Sprintf("charlm: backward of stage %d after %d forwards and %d backwards", s, t.forwards, t.backwards))
	}
	m.checkBlock("xs", xs, s)
	m.checkBlock("g", g, s)
	m.backwardStage(g, &t.act, xs, t.inputs, t.targets, s)
	t.backwards++
}

// checkBlock panics on a block of the wrong length, a programming error
// of the caller.
func (m *Model) checkBlock(name string, v []float64, s int) {
	if want := m.offsets[s+1] - m.offsets[s]; len(v) != want {
		panic(fmt.Sprintf("charlm: len(%s) = %d, want block %d's %d", name, len(v), s, want))
	}
}
