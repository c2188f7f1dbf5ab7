package request

import "github.com/pipelab/pipelab/fault"

// ErrBadInput marks an error in the request rather than in its run: the
// command line exits with status 2 on it, the server answers 400. It is
// fault.BadInput, the one kind every package marks bad input with.
var ErrBadInput = fault.BadInput

// badInputf formats an error that matches ErrBadInput.
var badInputf = fault.Badf
