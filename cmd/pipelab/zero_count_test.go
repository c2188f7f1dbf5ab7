package main

import (
	"strings"
	"testing"
)

// A count given as 0 is out of range, not missing: the message names the
// value the user typed (issue 39: `--microbatches 0` said "is required").
// A count left out is still named as required.
func TestZeroCountIsOutOfRangeNotMissing(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"schedule", "--kind", "1f1b", "--ranks", "4", "--microbatches", "0"}, "--microbatches must be at least 1, got 0"},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "0", "--microbatches", "4"}, "--ranks must be at least 1, got 0"},
		{[]string{"compare", "--ranks", "4", "--microbatches", "0"}, "--microbatches must be at least 1, got 0"},
		{[]string{"delays", "--kind", "1f1b", "--ranks", "0", "--microbatches", "4"}, "--ranks must be at least 1, got 0"},
		{[]string{"tune", "--model", "gpt-1.3b", "--gpu", "h100", "--link", "ib-ndr", "--ranks", "0"}, "--ranks must be at least 1, got 0"},
		{[]string{"delays", "--kind", "pipedream", "--ranks", "4", "--total-microbatches", "0"}, "--total-microbatches must be at least 1, got 0"},
		{[]string{"schedule", "--kind", "1f1b", "--ranks", "4"}, "--microbatches is required"},
		{[]string{"compare", "--microbatches", "4"}, "--ranks is required"},
	} {
		code, stderr := runCommand(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("pipelab %s: exit %d, %q; want exit 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}
