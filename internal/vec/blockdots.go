package vec

// AddBlockDots adds, for every block j in order, rows start ..
// start+len(out)-1 of blocks[j] times x[j] to out: AddDots(out,
// blocks[j][start·w:], x[j]) for each j, w being len(x[j]), rows of w
// values one after another. It is the forward of a linear model at a point
// given block by block (RPD's stale point, assembled from block versions)
// in one call, and each row's sum is formed as Dot forms it, so the result
// is bit for bit that of the calls it stands for.
//
// On amd64 with AVX, when every block's width is a multiple of 4, the
// blocks run in vector registers (blockdots_amd64.s): a row's four partial sums are the four
// lanes of a register, added lane by lane as Dot adds them and combined as
// (s0 + s1) + (s2 + s3), the products rounded before they are added, never
// fused; out's rows stay in registers across the blocks.
func AddBlockDots(out []float64, blocks [][]float64, start int, x [][]float64) {
	if len(out) == 0 {
		return
	}
	blocks = blocks[:len(x)]
	if blockDotsVector(out, blocks, start, x) {
		return
	}
	for j, xj := range x {
		AddDots(out, blocks[j][start*len(xj):], xj)
	}
}
