package main

import (
	"runtime/debug"

	"github.com/pipelab/pipelab/experiments"
)

// version is "pipelab VERSION (commit REV)": experiments.Version, the
// version every table records (its pipelab_version), and the VCS commit
// Go embeds in the build, marked "modified" when the tree had uncommitted
// changes.
func version() string {
	v := experiments.Version
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v + " (commit unknown: no build information)"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev == "" {
		return v + " (commit unknown: built without VCS information, e.g. -buildvcs=false)"
	}
	return v + " (commit " + rev + modified + ")"
}
