package charlm

import (
	"testing"

	"github.com/pipelab/pipelab/objectives"
)

// StageMatrices names exactly the slices block.params cuts for wqkv, wo,
// w1 and w2 (the same storage, checked by address and length), in order,
// for every block of every middle stage, and nothing on the embedding
// and head stages; the layout fits the blocks (objectives.CheckMatrices).
func TestStageMatricesAreTheWeightMatrices(t *testing.T) {
	text, _ := MarkovCorpus(1, 4000)
	for _, k := range []int{1, 2} {
		cfg := Config{Stages: 4, BlocksPerStage: k, Embed: 8, Heads: 2, SeqLen: 8, Batch: 2, Seed: 1}
		m, err := New(cfg, text)
		if err != nil {
			t.Fatal(err)
		}
		if err := objectives.CheckMatrices(m, m.Blocks()); err != nil {
			t.Fatal(err)
		}
		var _ objectives.Matrices = m
		x := m.Init()
		for s := range cfg.Stages {
			mats := m.StageMatrices(s)
			if s == 0 || s == cfg.Stages-1 {
				if mats != nil {
					t.Errorf("K=%d stage %d: matrices %v, want none (AdamW's)", k, s, mats)
				}
				continue
			}
			block := m.stage(x, s)
			if len(mats) != 4*k {
				t.Fatalf("K=%d stage %d: %d matrices, want %d", k, s, len(mats), 4*k)
			}
			for j := range k {
				p := m.blockParamsOf(block, j)
				for i, w := range [][]float64{p.attn.wqkv, p.attn.wo, p.mlp.w1, p.mlp.w2} {
					mx := mats[4*j+i]
					got := block[mx.Offset : mx.Offset+mx.Rows*mx.Cols]
					if &got[0] != &w[0] || len(got) != len(w) || !mx.InputRows {
						t.Errorf("K=%d stage %d block %d matrix %d: %+v is not the layer's weights", k, s, j, i, mx)
					}
				}
				e := cfg.Embed
				shapes := [][2]int{{e, 3 * e}, {e, e}, {e, 4 * e}, {4 * e, e}}
				for i, sh := range shapes {
					if mx := mats[4*j+i]; mx.Rows != sh[0] || mx.Cols != sh[1] {
						t.Errorf("K=%d matrix %d is %d×%d, want in×out %d×%d", k, i, mx.Rows, mx.Cols, sh[0], sh[1])
					}
				}
			}
		}
	}
}
