package experiments

import (
	"testing"

	"github.com/pipelab/pipelab/results"
)

// TestFiguresSelectOnWhatTheyReport: every convergence spec of every
// figure (full and quick) selects its steps on the metric the figure
// reports (docs/methods.md, "Which figures use which rule"): the time to
// target where the figure reports it (remedies: its time-to-target plot),
// the training loss where the figure plots f (the paper's protocol,
// scaling's final loss against S, the regime map, delay-profiles'
// quadratic curves), the held-out loss where it reports a validation or
// held-out quantity (the LM curves, the gaps of staleness-law and
// optimizers-under-delay, delay-profiles' LM). The claims table reports
// the other metrics beside it.
func TestFiguresSelectOnWhatTheyReport(t *testing.T) {
	reports := map[string]string{
		"pd-vs-rpd":                results.LossFinal,
		"pd-vs-localsgd":           results.LossFinal,
		"pd-vs-localsgd-budget":    results.LossFinal,
		"scaling":                  results.LossFinal,
		"regime":                   results.LossFinal,
		"delay-profiles-quadratic": results.LossFinal,
		"delay-profiles-lm":        results.MetricHeldOut,
		"lm":                       results.MetricHeldOut,
		"lm-text":                  results.MetricHeldOut,
		"remedies-lm-zb-h1":        results.MetricTimeToTarget,
		"remedies-logistic-1f1b":   results.MetricTimeToTarget,
		"remedies-logistic-zb-h1":  results.MetricTimeToTarget,
		"staleness-law-quadratic":  results.MetricHeldOut,
		"staleness-law-logistic":   results.MetricHeldOut,
		"staleness-law-lm":         results.MetricHeldOut,
		"optimizers-under-delay":   results.MetricHeldOut,
	}
	seen := map[string]bool{}
	for _, f := range Figures() {
		for _, quick := range []bool{true, false} {
			specs, err := f.Presets(quick)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range specs {
				if s.Measure != Convergence {
					continue
				}
				want, ok := reports[s.Name]
				if !ok {
					t.Errorf("%s: spec %s: no reported metric listed for it", f.PresetPath(quick), s.Name)
					continue
				}
				seen[s.Name] = true
				// Every objective of these figures has a held-out loss, so a
				// held-out rule selects on it (results.SelectionMetric).
				got := results.SelectionMetric(s.Select, []*results.Run{{HeldOutLoss: 1}})
				if got != want {
					t.Errorf("%s: spec %s selects on %s (%s) and reports %s", f.PresetPath(quick), s.Name, got, s.Select, want)
				}
			}
		}
	}
	for name := range reports {
		if !seen[name] {
			t.Errorf("no spec %s in the figures", name)
		}
	}
}
