//go:build unix

package cputime

import "testing"

// A busy loop's CPU time is counted: the reading after it is later than
// the one before (where the reading is available at all).
func TestProcessGrows(t *testing.T) {
	before, ok := Process()
	if !ok {
		t.Fatal("no CPU time on a unix system")
	}
	x := 0.0
	for i := range 20_000_000 {
		x += float64(i)
	}
	after, _ := Process()
	if !(after > before) || x == 0 {
		t.Errorf("CPU time %v after a busy loop, %v before", after, before)
	}
}
