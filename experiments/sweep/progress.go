package sweep

import (
	"fmt"
	"io"
)

// progress reports finished runs: a redrawn \r line on a terminal, or a
// line at each further tenth of the runs otherwise.
type progress struct {
	w        io.Writer
	terminal bool
	total    int
	done     int
	tenth    int // last tenth reported (non-terminal)
}

func newProgress(w io.Writer, terminal bool, total, done int) *progress {
	p := &progress{w: w, terminal: terminal, total: total, done: done}
	if w != nil && done > 0 {
		fmt.Fprintf(w, "resuming: %d of %d runs already done\n", done, total)
	}
	p.tenth = p.tenths()
	return p
}

func (p *progress) tenths() int {
	if p.total == 0 {
		return 10
	}
	return 10 * p.done / p.total
}

func (p *progress) step() {
	p.done++
	if p.w == nil {
		return
	}
	if p.terminal {
		fmt.Fprintf(p.w, "\r%d/%d runs (%d%%)", p.done, p.total, 100*p.done/p.total)
		return
	}
	if t := p.tenths(); t > p.tenth {
		p.tenth = t
		fmt.Fprintf(p.w, "%d/%d runs (%d%%)\n", p.done, p.total, 100*p.done/p.total)
	}
}

func (p *progress) finish() {
	if p.w != nil && p.terminal && p.total > 0 {
		fmt.Fprintln(p.w)
	}
}
