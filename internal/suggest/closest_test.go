package suggest

import "testing"

// TestDistance: Levenshtein distances counted by hand: kitten→sitting is
// 3 (k→s, e→i, +g), flaw→lawn 2 (drop f, +n), a swapped pair 2, a word
// to itself 0, the empty word to another its length, stages→ranks 4
// (drop s, t→r, g→n, e→k).
func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"kitten", "sitting", 3}, {"", "abc", 3}, {"ranks", "ranks", 0}, {"stages", "ranks", 4}, {"flaw", "lawn", 2}, {"ab", "ba", 2}} {
		if got := Distance(c.a, c.b); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

// TestClosest: a typo within a third of the word (or 2) finds its name,
// ties go to the first in order, a different word finds nothing, and a
// word no longer than the distance finds nothing either.
func TestClosest(t *testing.T) {
	names := []string{"batch_size", "stages", "seeds", "seed", "ranks"}
	for _, c := range []struct{ word, want string }{
		{"batch_sise", "batch_size"}, // 1 substitution
		{"stgaes", "stages"},         // a swapped pair: 2
		{"sed", "seed"},              // 1 insertion; "seeds" is 2
		{"rank", "ranks"},
		{"frobnicate", ""},
		{"xy", ""}, // every name is at least 2 away, the word's length
	} {
		if got := Closest(c.word, names); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}
