package sweep

import (
	"fmt"

	"github.com/pipelab/pipelab/experiments"
)

// inputError is an error of the input (a shard that is not I/N, merge
// inputs that do not form one data set, an output folder that holds
// another data set): its message as it is, matching experiments.ErrBadInput,
// for which the command exits with status 2.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

// Is makes the error match experiments.ErrBadInput.
func (e *inputError) Is(target error) bool { return target == experiments.ErrBadInput }

// badInputf formats an error that matches experiments.ErrBadInput.
func badInputf(format string, args ...any) error {
	return &inputError{fmt.Sprintf(format, args...)}
}
