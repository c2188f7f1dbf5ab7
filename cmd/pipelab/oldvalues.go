package main

import (
	"flag"
	"fmt"
	"io"
)

// oldValue is a renamed value of a flag, accepted for one release
// (docs/cli.md): the flag's name, the old value and the current one.
type oldValue struct{ flag, old, current string }

// oldValues are the values issue 14 renamed to the name the specs and the
// tables give them: the objective is charlm in the objective column and
// the method pipedream in the method column.
var oldValues = []oldValue{
	{"objective", "lm", "charlm"},
	{"method", "pd", "pipedream"},
}

// renameOldValues sets every flag of fs given an old value to the current
// one and prints one note per rewrite to w; parseFlags calls it for every
// command.
func renameOldValues(fs *flag.FlagSet, w io.Writer) {
	for _, o := range oldValues {
		fl := fs.Lookup(o.flag)
		if fl == nil || fl.Value.String() != o.old {
			continue
		}
		fl.Value.Set(o.current) // a string flag takes any value
		fmt.Fprintf(w, "pipelab: --%s %s is deprecated; use --%s %s (accepted until the next release)\n", o.flag, o.old, o.flag, o.current)
	}
}
