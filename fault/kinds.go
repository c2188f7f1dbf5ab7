package fault

import (
	"errors"
	"fmt"
	"io/fs"
)

// The error kinds: match them with errors.Is.
var (
	BadInput = errors.New("bad input")
	NotFound = errors.New("not found")
	TooLarge = errors.New("too large")
)

// Kind is the kind of err: BadInput, NotFound (a file or folder that is
// not there, fs.ErrNotExist included), TooLarge, or nil for a failure (or
// no error). A refusal of size is TooLarge even when it is also bad
// input.
func Kind(err error) error {
	for _, k := range []error{TooLarge, NotFound, BadInput} {
		if errors.Is(err, k) {
			return k
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return NotFound
	}
	return nil
}

// kindError is an error of a kind whose text is the message alone.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }

// Badf formats an error that matches BadInput.
func Badf(format string, a ...any) error {
	return &kindError{msg: fmt.Sprintf(format, a...), kind: BadInput}
}

// Bad marks err as bad input, its text unchanged; nil stays nil.
func Bad(err error) error {
	if err == nil {
		return nil
	}
	return &wrapped{err, BadInput}
}

// wrapped is an error marked as a kind, its text and chain unchanged.
type wrapped struct {
	error
	kind error
}

func (w *wrapped) Unwrap() error        { return w.error }
func (w *wrapped) Is(target error) bool { return target == w.kind }
