package main

import "github.com/pipelab/pipelab/internal/suggest"

// Did-you-mean: an unknown command or flag is answered with the closest
// known name, when one is close enough to be a typo (suggest.Closest, the
// rule the spec reader's unknown keys are answered by too).

// suggestCommand returns " (did you mean X?)" for the command closest to
// name, or "".
func suggestCommand(name string) string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	if near := suggest.Closest(name, names); near != "" {
		return " (did you mean " + near + "?)"
	}
	return ""
}
