package cost

import "fmt"

// MLA is DeepSeek's multi-head latent attention (DeepSeek-V2, arXiv
// 2405.04434 §2.1; DeepSeek-V3, arXiv 2412.19437 §2.1): queries and keys
// and values go through low-rank latents. With h the hidden size and a the
// heads, a layer's weights are
//
//	queries      h×QLoRA, QLoRA×a(QKNope + QKRope)  (one h×a(QKNope + QKRope) matrix when QLoRA is 0)
//	keys/values  h×(KVLoRA + QKRope), KVLoRA×a(QKNope + VHead)
//	output       a·VHead×h
//
// plus the RMSNorm gains of the two latents (QLoRA + KVLoRA). The zero
// value is no MLA.
type MLA struct {
	QLoRA, KVLoRA, QKNope, QKRope, VHead int
}

// on reports whether the block's attention is MLA.
func (m MLA) on() bool { return m.KVLoRA > 0 }

func (m MLA) validate() error {
	if m.QLoRA < 0 || m.KVLoRA < 1 || m.QKNope < 0 || m.QKRope < 0 || m.QKNope+m.QKRope < 1 || m.VHead < 1 {
		return fmt.Errorf("MLA q_lora %d, kv_lora %d, qk_nope %d, qk_rope %d, v_head %d: need positive latent, key and value widths",
			m.QLoRA, m.KVLoRA, m.QKNope, m.QKRope, m.VHead)
	}
	return nil
}

// params is the MLA weights and latent norms of one layer with hidden size
// h and a heads.
func (m MLA) params(h, a float64) float64 {
	qk := a * float64(m.QKNope+m.QKRope)
	q := h * qk
	if m.QLoRA > 0 {
		r := float64(m.QLoRA)
		q = h*r + r*qk + r
	}
	kvl := float64(m.KVLoRA)
	kv := h*(kvl+float64(m.QKRope)) + kvl*a*float64(m.QKNope+m.VHead) + kvl
	return q + kv + a*float64(m.VHead)*h
}

// headDim is the width of one attention head: HeadDim when the block sets
// it (Qwen3's head_dim, which need not be hidden/heads), hidden/heads
// otherwise.
func (blk Block) headDim() int {
	if blk.HeadDim > 0 {
		return blk.HeadDim
	}
	return blk.Hidden / blk.Heads
}

// attentionCore is the FLOPs of the attention's two products over t tokens
// and b samples: the scores QKᵀ, 2t²b·a·d_qk, and their weighted sum of the
// values, 2t²b·a·d_v. With d_qk = d_v = h/a this is 4t²bh; MLA's keys are
// QKNope + QKRope wide and its values VHead.
func (blk Block) attentionCore(t, b float64) float64 {
	a := float64(blk.Heads)
	qk, v := float64(blk.headDim()), float64(blk.headDim())
	if blk.MLA.on() {
		qk, v = float64(blk.MLA.QKNope+blk.MLA.QKRope), float64(blk.MLA.VHead)
	}
	return 2 * t * t * b * a * (qk + v)
}
