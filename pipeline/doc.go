// Package pipeline implements the schedule table at the centre of pipelab:
// rows are devices (ranks), a row is the ordered list of actions that rank
// runs, and a zero action is a bubble.
//
// Everything else in pipelab reads or writes a Table: the generators (one
// file per schedule family), the PyTorch schedule CSV codec, the
// communication lowering that inserts SEND/RECV actions, the unit-time
// lockstep check that PyTorch uses, and the text rendering. The simulator
// (package pipeline/sim) gives a table time; the optimizers replay it.
package pipeline
