package charlm

import "testing"

// TestWorkspaceFloatsBoundsTheAllocation sums the lengths of every slice
// newWorkspace allocates and checks that workspaceFloats, the estimate New
// guards memory with, is an upper bound within 5% of it.
func TestWorkspaceFloatsBoundsTheAllocation(t *testing.T) {
	text, _ := MarkovCorpus(1, 20000)
	for _, cfg := range []Config{DefaultConfig(), {Stages: 5, BlocksPerStage: 2, Embed: 8, Heads: 2, SeqLen: 7, Batch: 3}} {
		m, err := New(cfg, text)
		if err != nil {
			t.Fatal(err)
		}
		ws := m.ws
		var counted int
		add := func(v ...[]float64) {
			for _, x := range v {
				counted += len(x)
			}
		}
		add(ws.stream...)
		for _, c := range ws.blocks {
			add(c.ln1Xhat, c.ln1Rstd, c.ln1Out, c.attn.qkv, c.attn.probs, c.attn.y, c.attnOut, c.residual,
				c.ln2Xhat, c.ln2Rstd, c.ln2Out, c.mlp.pre, c.mlp.cdf, c.mlp.act, c.mlpOut)
		}
		s := ws.blockScratch
		add(ws.head.xhat, ws.head.rstd, ws.head.normed, ws.head.logits, ws.grad, s.attn.dqkv, s.attn.dy, s.attn.dp,
			s.hidden, s.dnormed, ws.dlogits, ws.dnormed, ws.linear.a, ws.linear.b)
		est := workspaceFloats(cfg, len(m.vocab))
		t.Logf("%+v: %d floats allocated, estimate %.0f", cfg, counted, est)
		if est < float64(counted) || est > 1.05*float64(counted) {
			t.Errorf("%+v: estimate %.0f floats, allocated %d", cfg, est, counted)
		}
	}
}
