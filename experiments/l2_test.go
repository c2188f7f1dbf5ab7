package experiments

import (
	"strings"
	"testing"
)

// The spec key l2 is train's --l2: logistic's λ, carried into every
// logistic run (and its name) when given, refused where nothing reads it.
func TestSpecL2(t *testing.T) {
	base := "experiment: l2\nobjectives: [logistic, quadratic]\nn: 40\nd: 8\nbatch_size: 4\nstages: [2]\ntotal_microbatches: [8]\n" +
		"methods: [{name: pipedream, step_sizes: {values: [0.1]}}]\n"
	s, err := ParseSpec("s.yaml", []byte(base+"l2: 0.05\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Expand() {
		switch {
		case r.Objective == "logistic" && (r.L2 == nil || *r.L2 != 0.05 || !strings.Contains(r.Name, " l2=0.05")):
			t.Errorf("logistic run without the spec's λ: %s", r.Name)
		case r.Objective != "logistic" && (r.L2 != nil || strings.Contains(r.Name, "l2=")):
			t.Errorf("%s run carries λ: %s", r.Objective, r.Name)
		}
	}
	plain, err := ParseSpec("s.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range plain.Expand() {
		if r.L2 != nil || strings.Contains(r.Name, "l2=") {
			t.Errorf("a spec without l2 gives a run with one: %s", r.Name)
		}
	}
	for _, c := range []struct{ src, want string }{
		{strings.Replace(base, "[logistic, quadratic]", "[quadratic]", 1) + "l2: 0.05\n", "s.yaml:9: l2: applies to the logistic objective only"},
		{base + "l2: -1\n", "s.yaml:9: l2: λ = -1 is not a finite weight of at least 0"},
		{"experiment: d\nmeasure: delays\nstages: [2]\nl2: 0.1\n", "s.yaml:4: l2: does not apply to measure delays"},
	} {
		if _, err := ParseSpec("s.yaml", []byte(c.src)); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}
