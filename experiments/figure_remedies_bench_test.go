//go:build unix

package experiments

import (
	"context"
	"strings"
	"testing"

	"pipelab/internal/cputime"
	"pipelab/optim"
)

// BenchmarkRemediesLM runs one LM run of the full remedies figure per
// method at S = 16 on the 1F1B table (momentum, the grid's middle step):
// the runs that cost the figure its wall time. cpu-ns/op is the process's
// CPU time per run (getrusage), steadier than the wall clock on a shared
// machine.
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
	picked := map[string]Run{}
	for _, r := range spec.Expand() {
		if r.Stages != 16 || r.Optimizer.Algorithm != optim.Momentum || r.Replicate != 0 {
			continue
		}
		if p, ok := picked[r.Method]; !ok || r.Step < p.Step {
			picked[r.Method] = r
		}
	}
	for _, m := range append(AsyncMethods, "sync", "rpd", "localsgd") {
		r, ok := picked[m]
		if !ok {
			b.Fatalf("no %s run", m)
		}
		b.Run(strings.ReplaceAll(m, "-", ""), func(b *testing.B) {
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
