package experiments

import "github.com/pipelab/pipelab/fault"

// ErrBadInput marks an error in what the caller gave rather than in a run:
// a malformed spec (SpecError), merge inputs that do not form one data set,
// an output folder that holds another data set. The command exits with
// status 2 for it. It is fault.BadInput, the one kind every package marks
// bad input with.
var ErrBadInput = fault.BadInput

// badInputf formats an error that matches ErrBadInput.
var badInputf = fault.Badf
