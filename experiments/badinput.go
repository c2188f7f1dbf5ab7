package experiments

import (
	"errors"
	"fmt"
)

// ErrBadInput marks an error in what the caller gave rather than in a run:
// a malformed spec (SpecError), merge inputs that do not form one data set,
// an output folder that holds another data set. The command exits with
// status 2 for it.
var ErrBadInput = errors.New("experiments: bad input")

// inputError is an error of the input: its message as it is, matching
// ErrBadInput.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

// Is makes the error match ErrBadInput.
func (e *inputError) Is(target error) bool { return target == ErrBadInput }

// badInputf formats an error that matches ErrBadInput.
func badInputf(format string, args ...any) error {
	return &inputError{fmt.Sprintf(format, args...)}
}
