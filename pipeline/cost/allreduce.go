package cost

// GradientSync is a cost model that also prices the all-reduce of a model
// part's weight gradients among the ranks that hold replicas of it, as in
// Chimera's two pipelines (arXiv 2107.06925, §3.4). A cost model without
// it makes that all-reduce free.
type GradientSync interface {
	// AllReduce returns how long all-reducing the weight gradients of
	// stage s among n replicas of its model part takes.
	AllReduce(s, n int) float64
}

// AllReduce prices a ring all-reduce of stage s's bf16 gradients among n
// ranks over the model's link (RingAllReduce).
func (g *GPUModel) AllReduce(s, n int) float64 {
	return RingAllReduce(g.Params(s)*GradientBytesPerParam, n, g.config.Link)
}

// RingAllReduce returns how long a ring all-reduce of the given bytes
// among n ranks takes over link:
//
//	2(n-1)/n · bytes/BW + 2(n-1)·α
//
// every rank sends and receives 2(n-1)/n of the data in 2(n-1) steps, each
// paying the link's latency α (Patarasuk and Yuan, JPDC 2009; NCCL's ring
// algorithm). One rank has nothing to reduce: 0.
func RingAllReduce(bytes float64, n int, link Link) float64 {
	if n < 2 {
		return 0
	}
	r := float64(n)
	return 2*(r-1)/r*bytes/link.Bandwidth + 2*(r-1)*link.Latency
}

// AllReduce prices the all-reduce of the part stage s runs.
func (m replicated) AllReduce(s, n int) float64 { return m.g.AllReduce(m.stage(s), n) }
