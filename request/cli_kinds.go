package request

import (
	"fmt"
	"io"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/tune"
)

const kindsDescription = `
Lists the schedule families, one per line: the name "pipelab schedule --kind"
takes, and a one-line summary with the family's source.`

// DecodeKinds decodes kinds' command line, which has no flags of its own.
func DecodeKinds(args []string, stderr io.Writer) error {
	fs := NewFlags("kinds", "", kindsDescription, stderr)
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if err := NoArguments(fs.Args()); err != nil {
		return FlagProblem(fs, stderr, "kinds", err)
	}
	return nil
}

// KindsReport is the schedule families, zb-auto last: what "pipelab
// kinds" lists.
type KindsReport []pipeline.Family

// Kinds lists the schedule families.
func Kinds() KindsReport {
	return append(pipeline.Families(), pipeline.Family{Name: tune.ZBAutoFamily, Summary: ZBAutoSummary})
}

// WriteText prints the families one a line, name and summary.
func (families KindsReport) WriteText(w io.Writer) error {
	width := 0
	for _, f := range families {
		width = max(width, len(f.Name))
	}
	for _, f := range families {
		if _, err := fmt.Fprintf(w, "%-*s  %s\n", width, f.Name, f.Summary); err != nil {
			return err
		}
	}
	return nil
}
