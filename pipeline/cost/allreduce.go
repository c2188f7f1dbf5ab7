package cost

// GradientSync is a cost model that also prices the all-reduce of a model
// part's weight gradients among the ranks that hold replicas of it, as in
// Chimera's two pipelines (arXiv 2107.06925, §3.4). A cost model without
// it makes that all-reduce free.
type GradientSync interface {
	// AllReduce returns how long all-reducing the weight gradients of
	// stage s among the replicas of its model part, on the given ranks,
	// takes.
	AllReduce(s int, ranks []int) float64
}

// AllReduce prices a ring all-reduce of stage s's bf16 gradients among the
// ranks, in the order given, over the links that join neighbours of the
// ring (RingAllReduceOver).
func (g *GPUModel) AllReduce(s int, ranks []int) float64 {
	return RingAllReduceOver(g.Params(s)*GradientBytesPerParam, ranks, g.config.LinkBetween)
}

// AveragingTime is what one LocalSGD averaging costs under the GPU model:
// every stage averages its R replicas at once, each with a ring all-reduce
// of its bf16 weights over the R replicas' devices (RingAllReduce of
// P_s·WeightBytesPerParam bytes, P_s the stage's parameters), so the
// averaging takes the slowest stage's. The unit-time model of
// docs/reference.md §1.5 places the replicas on the pipeline's own machines and
// averages for free; pricing the all-reduce is what the replicas would
// cost on separate devices, LocalSGD's usual deployment. With R = 1 there
// is nothing to average.
func (g *GPUModel) AveragingTime(replicas int) float64 {
	link := g.Config().Link
	var worst float64
	for s := range g.Stages() {
		worst = max(worst, RingAllReduce(g.Params(s)*WeightBytesPerParam, replicas, link))
	}
	return worst
}

// RingAllReduce returns how long a ring all-reduce of the given bytes
// among n ranks takes over link:
//
//	2(n-1)/n · bytes/BW + 2(n-1)·α
//
// every rank sends and receives 2(n-1)/n of the data in 2(n-1) steps, each
// paying the link's latency α (Patarasuk and Yuan, JPDC 2009; NCCL's ring
// algorithm), BW the link's CollectiveBandwidth (its Bandwidth when that
// is zero). One rank has nothing to reduce: 0.
func RingAllReduce(bytes float64, n int, link Link) float64 {
	if n < 2 {
		return 0
	}
	r := float64(n)
	return 2*(r-1)/r*bytes/link.collectiveBandwidth() + 2*(r-1)*link.Latency
}

// RingAllReduceOver is RingAllReduce on a ring of the given ranks whose
// neighbours (ranks[i], ranks[i+1 mod n]) may be joined by different links
// (linkOf): the ring moves in lockstep, so each of its 2(n-1) steps takes
// the slowest hop's time, the smallest collective bandwidth and the
// largest latency of the ring. On one link it is RingAllReduce.
func RingAllReduceOver(bytes float64, ranks []int, linkOf func(from, to int) Link) float64 {
	n := len(ranks)
	if n < 2 {
		return 0
	}
	first := linkOf(ranks[0], ranks[1%n])
	slowest := Link{Bandwidth: first.collectiveBandwidth(), Latency: first.Latency}
	for i := range ranks {
		l := linkOf(ranks[i], ranks[(i+1)%n])
		slowest.Bandwidth = min(slowest.Bandwidth, l.collectiveBandwidth())
		slowest.Latency = max(slowest.Latency, l.Latency)
	}
	return RingAllReduce(bytes, n, slowest)
}

// AllReduce prices the all-reduce of the part stage s runs.
func (m replicated) AllReduce(s int, ranks []int) float64 { return m.g.AllReduce(m.stage(s), ranks) }
