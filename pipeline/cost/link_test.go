package cost

import (
	"math"
	"testing"
)

// PointToPoint is latency + overhead + bytes over the point-to-point
// bandwidth, the link's bandwidth when none is given (closed forms).
func TestPointToPoint(t *testing.T) {
	const bytes = 28311552
	l := Link{Latency: 3e-6, Bandwidth: 300e9}
	if got, want := l.PointToPoint(bytes), 3e-6+bytes/300e9; math.Abs(got-want) > 1e-15 {
		t.Errorf("datasheet link: %g s, want %g", got, want)
	}
	l.P2PBandwidth, l.P2POverhead = 72e9, 2e-4
	if got, want := l.PointToPoint(bytes), 3e-6+2e-4+bytes/72e9; math.Abs(got-want) > 1e-15 {
		t.Errorf("with NCCL's send/receive: %g s, want %g", got, want)
	}
}
