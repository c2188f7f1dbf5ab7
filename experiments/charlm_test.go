package experiments

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/objectives/charlm"
)

// lmSpec is a valid charlm spec; the cases below append keys to it (from
// line 9 on).
const lmSpec = `objectives: [charlm]
batch_size: 1
stages: [3]
total_microbatches: [4]
methods:
  - {name: pipedream, step_sizes: {values: [0.0625]}}
seed: 1
experiment: lm
`

func TestCharLMKeysRejected(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.txt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, spec, want string
	}{
		{"negative blocks per stage", lmSpec + "blocks_per_stage: -1\n", "s.yaml:9: blocks_per_stage: must be at least 1, got -1"},
		{"markov without n", lmSpec + "corpus: markov\n", "n: the markov corpus needs n"},
		{"n with the shipped text", lmSpec + "n: 5000\n", "s.yaml:9: n: n sizes the markov corpus only; corpus tinyshakespeare has its own length"},
		{"empty corpus file", lmSpec + "corpus: " + empty + "\n", "s.yaml:9: corpus: charlm: invalid corpus " + empty + ": empty"},
		// Batch 16 × sequence 32 needs 10·513 − 9 = 5121 characters: n = 4608
		// training characters make a text of 5120.
		{"markov too short", strings.Replace(lmSpec, "batch_size: 1", "batch_size: 16", 1) + "corpus: markov\nn: 4608\n", "s.yaml:10: n: charlm: invalid corpus: 5120 characters, need at least 5121"},
		{"too many blocks", lmSpec + "blocks_per_stage: 100000\n", "s.yaml:3: stages[0]: charlm: invalid config: the workspaces of 100000 GPT blocks"},
		{"corpus without charlm", strings.Replace(lmSpec, "[charlm]", "[quadratic]\nn: 40\nd: 8", 1) + "corpus: markov\n",
			"corpus: applies to the charlm objective only"},
		{"blocks without charlm", strings.Replace(lmSpec, "[charlm]", "[quadratic]\nn: 40\nd: 8", 1) + "blocks_per_stage: 2\n",
			"blocks_per_stage: applies to the charlm objective only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSpec("s.yaml", []byte(tt.spec))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// Runs on the markov corpus with one block per stage keep the names (and
// ids) they had before the corpus and blocks_per_stage keys existed;
// other corpora and K > 1 are part of the name.
func TestCharLMRunNames(t *testing.T) {
	name := func(extra string) string {
		runs := mustSpec(t, lmSpec+extra).Expand()
		if len(runs) != 1 {
			t.Fatalf("%d runs", len(runs))
		}
		return runs[0].Name
	}
	markov := name("corpus: markov\nn: 3000\n")
	if strings.Contains(markov, "corpus") || strings.Contains(markov, "blocks_per_stage") {
		t.Errorf("markov run name %q carries the new keys", markov)
	}
	if got := name(""); !strings.Contains(got, " corpus=tinyshakespeare ") {
		t.Errorf("default run name %q does not name its corpus", got)
	}
	if got := name("corpus: markov\nn: 3000\nblocks_per_stage: 2\n"); !strings.Contains(got, " blocks_per_stage=2 ") {
		t.Errorf("K = 2 run name %q does not carry it", got)
	}
}

// The run's model is the one the keys describe: K blocks per middle
// stage, on the named corpus, and it trains.
func TestExecuteCharLM(t *testing.T) {
	runs, outs := execute(t, lmSpec+"corpus: markov\nn: 6000\nblocks_per_stage: 2\n")
	obj, err := NewObjective(runs[0], runs[0].Stages)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := charlm.MarkovCorpus(runs[0].DataSeed, 6000)
	want, err := charlm.New(charlm.Config{Stages: 3, BlocksPerStage: 2, Embed: 64, Heads: 4, SeqLen: 32, Batch: 1, Seed: runs[0].DataSeed}, text)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(obj.Blocks(), want.Blocks()) || !slices.Equal(obj.Init(), want.Init()) {
		t.Errorf("blocks %v, want %v (and the same Init)", obj.Blocks(), want.Blocks())
	}
	if c := outs[0].Curves; len(c) < 2 || !(c[len(c)-1].Loss < c[0].Loss) {
		t.Errorf("the loss did not decrease: %v", c)
	}
}

// embed and seq_len size the model: the run builds charlm.New's model of
// that width and context (its blocks, Init), they enter the run's name
// only when set, and a width that is not a multiple of the heads, a
// negative length or either key without charlm is refused naming the key.
func TestCharLMEmbedAndSeqLen(t *testing.T) {
	runs := mustSpec(t, lmSpec+"corpus: markov\nn: 3000\nembed: 16\nseq_len: 8\n").Expand()
	if !strings.Contains(runs[0].Name, " embed=16 seq_len=8 ") {
		t.Errorf("name %q lacks embed and seq_len", runs[0].Name)
	}
	if plain := mustSpec(t, lmSpec+"corpus: markov\nn: 3000\n").Expand()[0].Name; strings.Contains(plain, "embed") {
		t.Errorf("default run name %q carries embed", plain)
	}
	obj, err := NewObjective(runs[0], runs[0].Stages)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := charlm.MarkovCorpus(runs[0].DataSeed, 3000)
	want, err := charlm.New(charlm.Config{Stages: 3, BlocksPerStage: 1, Embed: 16, Heads: 4, SeqLen: 8, Batch: 1, Seed: runs[0].DataSeed}, text)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(obj.Blocks(), want.Blocks()) || !slices.Equal(obj.Init(), want.Init()) {
		t.Errorf("blocks %v, want %v (and the same Init)", obj.Blocks(), want.Blocks())
	}
	for _, tc := range []struct{ extra, want string }{
		{"embed: 6\n", "s.yaml:9: embed: must be a positive multiple of the 4 heads, got 6"},
		{"seq_len: -1\n", "s.yaml:9: seq_len: must be at least 1, got -1"},
	} {
		if _, err := ParseSpec("s.yaml", []byte(lmSpec+tc.extra)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.extra, err, tc.want)
		}
	}
	quad := strings.Replace(lmSpec, "[charlm]", "[quadratic]\nn: 40\nd: 8", 1)
	for _, k := range []string{"embed: 16", "seq_len: 8"} {
		if _, err := ParseSpec("s.yaml", []byte(quad+k+"\n")); err == nil || !strings.Contains(err.Error(), "applies to the charlm objective only") {
			t.Errorf("%s without charlm: %v", k, err)
		}
	}
}
