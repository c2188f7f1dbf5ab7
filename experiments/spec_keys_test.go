package experiments

import (
	"strings"
	"testing"
)

// TestSpecKeyDidYouMean: an unknown key is answered with the key it was
// renamed to (an earlier spelling, docs/cli.md's concept table) or the
// closest key of its own level, and a count key of the other side of the
// naming convention (stages for P, microbatches for N, and back) with
// the key its measure takes, each on the key's line; a word near no key
// gets no suggestion.
func TestSpecKeyDidYouMean(t *testing.T) {
	const schedules = "experiment: s\nmeasure: schedules\nkinds: [1f1b]\nranks: [4]\nmicrobatches: [8]\n"
	const delays = "experiment: d\nmeasure: delays\nstages: [4]\n"
	for _, tc := range []struct {
		name, spec, want string
	}{
		// Earlier spellings, too far from their keys for an edit distance.
		{"old top-level key", strings.Replace(base, "batch_size: 4", "batch: 4", 1), `s.yaml:6: unknown key "batch" (did you mean batch_size?)`},
		{"old name key", strings.Replace(base, "experiment: t", "name: t", 1), `s.yaml:1: unknown key "name" (did you mean experiment?)`},
		{"old method key", strings.Replace(base, "    step_sizes: {pow2: [-4, -2]}", "    steps: {pow2: [-4, -2]}", 1), `s.yaml:11: unknown key "steps" (did you mean step_sizes?)`},
		{"old cost key", base + "cost: {cost_model: gpu, microbatch: 2}\n", `s.yaml:15: unknown key "microbatch" (did you mean microbatch_size?)`},
		{"old sync key", syncBase[:strings.Index(syncBase, "    microbatches: 8")] + "    microbatches_per_iteration: 8\n    step_sizes: {values: [0.1]}\n",
			`s.yaml:12: unknown key "microbatches_per_iteration" (did you mean microbatches? sync's microbatches M of one iteration`},
		{"old delays key", delays + "microbatches_per_stage: 10\n", `s.yaml:4: unknown key "microbatches_per_stage" (did you mean total_microbatches_per_stage? N = k·S`},
		// Typos: the closest key of the level the key is at.
		{"typo at the top", strings.Replace(base, "batch_size: 4", "batch_sise: 4", 1), `s.yaml:6: unknown key "batch_sise" (did you mean batch_size?)`},
		{"typo in a method", strings.Replace(base, "    deltas: [8, paper]", "    delta: [8, paper]", 1), `s.yaml:13: unknown key "delta" (did you mean deltas?)`},
		{"typo in a grid", strings.Replace(base, "{pow2: [-4, -2]}", "{pow: [-4, -2]}", 1), `s.yaml:11: unknown key "pow" (did you mean pow2?)`},
		{"typo in an optimizer", strings.Replace(base, "  - name: pipedream\n", "  - name: pipedream\n    optimizer: {name: adam, beta: 0.9}\n", 1),
			`s.yaml:11: unknown key "beta" (did you mean beta1?)`},
		{"typo in the cost section", base + "cost: {cost_model: gpu, gpus: a100}\n", `s.yaml:15: unknown key "gpus" (did you mean gpu?)`},
		// The convention's neighbours: known keys of another measure.
		{"microbatches in a convergence spec", strings.Replace(base, "total_microbatches: [20]", "microbatches: [20]", 1),
			"s.yaml:8: microbatches: does not apply to measure convergence (did you mean total_microbatches? N, the microbatches over a run"},
		{"microbatches in a delays spec", delays + "microbatches: [40]\n", "s.yaml:4: microbatches: does not apply to measure delays (did you mean total_microbatches?"},
		{"ranks in a convergence spec", strings.Replace(base, "stages: [2, 4]", "ranks: [2, 4]", 1),
			"s.yaml:7: ranks: does not apply to measure convergence (did you mean stages? its runs put one of S stages on each rank)"},
		{"stages in a schedules spec", strings.Replace(schedules, "ranks: [4]", "stages: [4]", 1),
			"s.yaml:4: stages: does not apply to measure schedules (did you mean ranks? it lays out P ranks"},
		{"total microbatches in a schedules spec", strings.Replace(schedules, "microbatches: [8]", "total_microbatches: [8]", 1),
			"s.yaml:5: total_microbatches: does not apply to measure schedules (did you mean microbatches? the M of one iteration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSpec("s.yaml", []byte(tc.spec))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	// A word near no key gets none.
	_, err := ParseSpec("s.yaml", []byte(base+"frobnicate: 1\n"))
	if err == nil || !strings.Contains(err.Error(), `unknown key "frobnicate"`) || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("frobnicate: %v", err)
	}
	// The specs above are valid with the keys the hints name.
	for _, s := range []string{schedules, delays + "total_microbatches_per_stage: 10\n", syncBase} {
		if _, err := ParseSpec("s.yaml", []byte(s)); err != nil {
			t.Errorf("%v", err)
		}
	}
}
