package fault

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

// Each constructor gives an error of its kind, its text as written, and a
// wrapped error keeps its kind; a plain error is a failure (kind nil).
func TestKinds(t *testing.T) {
	b := Badf("--ranks must be at least 1, got %d", 0)
	if Kind(b) != BadInput || b.Error() != "--ranks must be at least 1, got 0" {
		t.Errorf("Badf: kind %v, text %q", Kind(b), b)
	}
	if w := fmt.Errorf("simulate: %w", b); Kind(w) != BadInput {
		t.Errorf("wrapped bad input: kind %v", Kind(w))
	}
	plain := errors.New("deadlock")
	if Kind(plain) != nil || Kind(Bad(plain)) != BadInput || !errors.Is(Bad(plain), plain) || Bad(nil) != nil {
		t.Errorf("Bad: kinds %v, %v", Kind(plain), Kind(Bad(plain)))
	}
	if missing := (&fs.PathError{Op: "open", Path: "x.csv", Err: fs.ErrNotExist}); Kind(fmt.Errorf("--schedule: %w", missing)) != NotFound {
		t.Errorf("a missing file is not NotFound")
	}
	if Kind(fmt.Errorf("%w: %w", TooLarge, BadInput)) != TooLarge {
		t.Errorf("a size refusal that is bad input too is not TooLarge")
	}
}
