package main

import (
	"fmt"
	"io"
	"time"
)

// progressInterval is how often a long train run says where it is.
const progressInterval = 5 * time.Second

// trainProgress returns an optim.Settings.Progress that writes, to w,
// "pipelab train: update k of K (p%), T s elapsed" once every interval
// of the clock now, and nothing for a run that ends sooner. It writes on
// stderr only: the run and its output do not depend on it.
func trainProgress(w io.Writer, interval time.Duration, now func() time.Time) func(done, total int) {
	start := now()
	next := start.Add(interval)
	return func(done, total int) {
		t := now()
		if t.Before(next) {
			return
		}
		next = t.Add(interval)
		fmt.Fprintf(w, "pipelab train: update %d of %d (%.0f%%), %.0f s elapsed\n",
			done, total, 100*float64(done)/float64(max(total, 1)), t.Sub(start).Seconds())
	}
}
