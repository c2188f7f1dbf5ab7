package cost

// PointToPoint returns the time of one point-to-point transfer of bytes
// over the link: latency + P2POverhead + bytes / P2PBandwidth (Bandwidth
// when P2PBandwidth is zero). With neither set it is the latency-bandwidth
// price of the link's datasheet. Megatron-LM moves a pipeline's
// activations and gradients with blocking batched isend/irecv calls, and
// NCCL's send and receive reach less than the link's bandwidth
// (docs/validation.md measures the difference against the Zero Bubble
// paper's T_comm).
func (l Link) PointToPoint(bytes float64) float64 {
	bw := l.Bandwidth
	if l.P2PBandwidth > 0 {
		bw = l.P2PBandwidth
	}
	return l.Latency + l.P2POverhead + bytes/bw
}

// collectiveBandwidth is the bandwidth a ring collective runs at on the
// link: CollectiveBandwidth, or Bandwidth when that is zero.
func (l Link) collectiveBandwidth() float64 {
	if l.CollectiveBandwidth > 0 {
		return l.CollectiveBandwidth
	}
	return l.Bandwidth
}
