package suggest

// Closest returns the name of names nearest to word by edit distance
// (Levenshtein: insertions, deletions, substitutions), the first in order
// of names among equals, when that distance is at most a third of word's
// length, or 2 (a swapped pair of letters), and below word's length, so
// that a typo finds its name and a different word finds none; ""
// otherwise.
func Closest(word string, names []string) string {
	n := len([]rune(word))
	best, bestDist := "", min(max(2, n/3), n-1)+1
	for _, name := range names {
		if d := Distance(word, name); d < bestDist || (d == bestDist && best != "" && name < best) {
			best, bestDist = name, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b.
func Distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			sub := prev[j-1]
			if x[i-1] != y[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(y)]
}
