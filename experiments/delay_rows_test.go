package experiments

import (
	"math"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/results"
)

// TestDelayRowsAreTheDelaysTablesRows: with delay_rows a delays run lists
// every delay, N·S rows (block updates) of S stages each, and the
// statistics of those rows, computed here from the rows alone, are the
// delays table's over all rows (which optim.StageDelays forms from a
// histogram, without the rows).
func TestDelayRowsAreTheDelaysTablesRows(t *testing.T) {
	runs, outs := execute(t, "measure: delays\nstages: [2, 4, 8]\ndelay_rows: true\n")
	for i, out := range outs {
		s, n := runs[i].Stages, runs[i].TotalMicrobatches
		if len(out.DelayRows) != n*s*s {
			t.Fatalf("S = %d: %d rows, want N·S² = %d", s, len(out.DelayRows), n*s*s)
		}
		seen := map[[2]int64]bool{}
		var sum, maxDelay int64
		for _, r := range out.DelayRows {
			key := [2]int64{r.Update, int64(r.Stage)}
			if seen[key] || r.Update < 1 || r.Update > int64(n*s) || r.Stage < 0 || int(r.Stage) >= s {
				t.Fatalf("S = %d: row %+v repeated or out of range", s, r)
			}
			seen[key] = true
			sum += r.Delay
			maxDelay = max(maxDelay, r.Delay)
		}
		var all *results.DelayStat
		for j := range out.Delays {
			if d := &out.Delays[j]; d.Window == results.WindowAll && d.Stage == results.AllStages {
				all = d
			}
		}
		if all == nil {
			t.Fatalf("S = %d: no delays row over all updates and stages", s)
		}
		mean := float64(sum) / float64(len(out.DelayRows))
		if all.Max != maxDelay || all.Rows != int64(n*s) || math.Abs(all.Mean-mean) > 1e-12*mean {
			t.Errorf("S = %d: delays table max %d mean %.15g over %d updates; the rows give max %d mean %.15g over %d",
				s, all.Max, all.Mean, all.Rows, maxDelay, mean, n*s)
		}
	}
}

// TestDelayRowsOnlyForDelays: the key applies to measure delays, and asking
// for it keeps no other run's id (it joins the canonical name only when set).
func TestDelayRowsOnlyForDelays(t *testing.T) {
	if _, err := ParseSpec("s.yaml", []byte("experiment: x\nmeasure: schedules\nkinds: [1f1b]\nranks: [4]\nmicrobatches: [8]\ndelay_rows: true\n")); err == nil ||
		!strings.Contains(err.Error(), "s.yaml:6: delay_rows: applies to measure delays only") {
		t.Errorf("delay_rows on schedules: %v", err)
	}
	plain := mustSpec(t, "measure: delays\nstages: [4]\n").Expand()
	raw := mustSpec(t, "measure: delays\nstages: [4]\ndelay_rows: true\n").Expand()
	if plain[0].ID == raw[0].ID || strings.Contains(plain[0].Name, "delay_rows") || !strings.Contains(raw[0].Name, "delay_rows=true") {
		t.Errorf("run names %q and %q: want the raw-delay run named apart", plain[0].Name, raw[0].Name)
	}
}
