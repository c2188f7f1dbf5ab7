package charlm

import "testing"

// ShakespeareConfig builds on the shipped text, and Parameters, the closed
// form of docs/charlm.md's table, is the length of the vector the layout
// code builds, for the config and for other stage and block counts.
func TestShakespeareConfigBuildsAndCountsItsParameters(t *testing.T) {
	text := TinyShakespeare()
	base := ShakespeareConfig()
	for _, c := range []struct{ stages, k int }{{4, 1}, {8, 1}, {3, 2}, {5, 3}} {
		cfg := base
		cfg.Stages, cfg.BlocksPerStage = c.stages, c.k
		m, err := New(cfg, text)
		if err != nil {
			t.Fatalf("S = %d, K = %d: %v", c.stages, c.k, err)
		}
		if got, want := cfg.Parameters(len(m.Vocabulary())), m.Dim(); got != want {
			t.Errorf("S = %d, K = %d: Parameters %d, the model's vector %d", c.stages, c.k, got, want)
		}
	}
	// docs/charlm.md's count at S = 4, by hand from its table with V = 65,
	// T = 16, E = 32: (65+16)·32 + 2·(12·32² + 13·32) + 2·32 + 32·65.
	if got, want := base.Parameters(65), 81*32+2*(12*32*32+13*32)+2*32+32*65; got != want || want != 30144 {
		t.Errorf("Parameters(65) = %d, by hand %d (docs: 30,144)", got, want)
	}
}
