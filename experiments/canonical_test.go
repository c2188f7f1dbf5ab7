package experiments

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"
)

// TestCanonicalNamesFrozen: run ids hash canonical names whose words are
// frozen (docs/cli.md, "Run ids"), so the renames of issue 14 change no id.
// examples/tiny.yaml, now spelled with experiment and the current keys,
// still expands to the run id that docs/sweeps.md quotes from a sweep of
// the release before (its spec_id: sweep's TestSpecIDFrozen); and a schedules run's name still
// spells its family family=, its id the SHA-256 of that name, computed here.
func TestCanonicalNamesFrozen(t *testing.T) {
	tiny, err := ReadSpecFile("../examples/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	runs := tiny.Expand()
	if !slices.ContainsFunc(runs, func(r Run) bool { return r.ID == "00f08cf66d6875b1" }) {
		t.Errorf("examples/tiny.yaml lost the run id 00f08cf66d6875b1 of docs/sweeps.md")
	}
	s, err := ParseSpec("s.yaml", []byte("experiment: t\nmeasure: schedules\nkinds: [1f1b]\nranks: [4]\nmicrobatches: [8]\nseed: 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	const name = "experiment=schedules family=1f1b S=4 N=8 cost=unit seed=3"
	sum := sha256.Sum256([]byte(name))
	if r := s.Expand(); len(r) != 1 || r[0].Name != name || r[0].ID != hex.EncodeToString(sum[:8]) {
		t.Errorf("schedules run %+v, want name %q and id %x", r, name, sum[:8])
	}
}
