//go:build unix

package experiments

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pipelab/internal/cputime"
	"pipelab/optim"
)

// BenchmarkRemediesLM runs one LM run of the full remedies figure per
// method and stage count (S = 4, 8, 16) on the 1F1B table (momentum, the
// grid's smallest step): the runs that cost the figure its wall time.
// cpu-ns/op is the process's CPU time per run (getrusage), steadier than
// the wall clock on a shared machine. The first run of each S builds the
// timelines the others reuse from the cache, as a sweep does.
func BenchmarkRemediesLM(b *testing.B) {
	var spec *Spec
	for _, s := range figureRemedies.Specs(false) {
		if s.Name == "remedies-lm-1f1b" {
			spec = s
		}
	}
	if err := spec.Validate(); err != nil {
		b.Fatal(err)
	}
	type key struct {
		stages int
		method string
	}
	picked := map[key]Run{}
	for _, r := range spec.Expand() {
		if r.Optimizer.Algorithm != optim.Momentum || r.Replicate != 0 {
			continue
		}
		k := key{r.Stages, r.Method}
		if p, ok := picked[k]; !ok || r.Step < p.Step {
			picked[k] = r
		}
	}
	for _, stages := range spec.Stages {
		for _, m := range append(AsyncMethods, "sync", "rpd", "localsgd") {
			r, ok := picked[key{stages, m}]
			if !ok {
				b.Fatalf("no %s run at S = %d", m, stages)
			}
			b.Run(fmt.Sprintf("S%d/%s", stages, strings.ReplaceAll(m, "-", "")), func(b *testing.B) {
				start, _ := cputime.Process()
				for b.Loop() {
					if _, err := Execute(context.Background(), r); err != nil {
						b.Fatal(err)
					}
				}
				end, _ := cputime.Process()
				b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
