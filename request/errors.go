package request

import (
	"errors"
	"fmt"
)

// ErrBadInput marks an error in the request rather than in its run: the
// command line exits with status 2 on it, the server answers 400.
var ErrBadInput = errors.New("request: bad input")

// inputError is an error of the caller's input, matching ErrBadInput;
// its text is the message alone.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

// Is makes the error match ErrBadInput.
func (e *inputError) Is(target error) bool { return target == ErrBadInput }

// badInputf formats an error that matches ErrBadInput.
func badInputf(format string, a ...any) error {
	return &inputError{msg: fmt.Sprintf(format, a...)}
}
