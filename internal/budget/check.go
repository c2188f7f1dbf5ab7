package budget

import "fmt"

// Check refuses work estimated to need bytes when that exceeds the limit,
// in one line: "WHAT needs about N GB; the limit is M GB, set by
// --max-memory or PIPELAB_MAX_MEMORY". The error matches ErrTooLarge
// (errors.Is).
func Check(what string, bytes float64) error {
	limit, _, err := Limit()
	if err != nil {
		return err
	}
	if bytes <= float64(limit) {
		return nil
	}
	return &tooLarge{fmt.Sprintf("%s needs about %s; the limit is %s, set by --max-memory or %s",
		what, Format(bytes), Format(float64(limit)), EnvVar)}
}

// tooLarge is Check's refusal.
type tooLarge struct{ msg string }

func (e *tooLarge) Error() string { return e.msg }

// Is makes a refusal match ErrTooLarge.
func (e *tooLarge) Is(target error) bool { return target == ErrTooLarge }
