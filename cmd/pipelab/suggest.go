package main

// Did-you-mean: an unknown command or flag is answered with the closest
// known name, when one is close enough to be a typo.

// suggestCommand returns " (did you mean X?)" for the command closest to
// name, or "".
func suggestCommand(name string) string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	if near := closest(name, names); near != "" {
		return " (did you mean " + near + "?)"
	}
	return ""
}

// closest returns the name of names nearest to word by edit distance
// (Levenshtein: insertions, deletions, substitutions), the first in order
// of names among equals, when that distance is at most a third of word's
// length, or 2 (a swapped pair of letters), and below word's length, so
// that a typo finds its name and a different word finds none; ""
// otherwise.
func closest(word string, names []string) string {
	n := len([]rune(word))
	best, bestDist := "", min(max(2, n/3), n-1)+1
	for _, name := range names {
		if d := editDistance(word, name); d < bestDist || (d == bestDist && best != "" && name < best) {
			best, bestDist = name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
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
