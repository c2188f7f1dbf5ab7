package experiments

import "fmt"

// MaxExtendGrid bounds the spec key extend_grid.
const MaxExtendGrid = 10

// extendGrid is the spec's extend_grid, 0 (off) when not given.
func (s *Spec) extendGrid() int {
	if s.ExtendGrid == nil {
		return 0
	}
	return *s.ExtendGrid
}

// validateExtendGrid checks the spec key extend_grid: 0..MaxExtendGrid,
// and only for convergence sweeps, whose step sizes are selected.
func (s *Spec) validateExtendGrid(v validator) error {
	n := s.extendGrid()
	switch {
	case n < 0 || n > MaxExtendGrid:
		return v.fail(fmt.Sprintf("%d is not between 0 (no extension) and %d", n, MaxExtendGrid), "extend_grid")
	case n > 0 && s.Measure != Convergence:
		return v.fail("applies to measure convergence only", "extend_grid")
	}
	return nil
}
