package validation

import (
	"math"
	"testing"
)

// The transfer calibration, recomputed by hand: the 1.5B activation is
// s·b·h bf16 values, 1024·6·2304·2 = 28,311,552 bytes, all its boundaries
// inside one node of 8, so the measured T_comm (0.601 ms, Appendix D)
// less NVLink's 3 µs and the bytes at NCCL's 72 GB/s send/receive
// (hardware/zb-a100-roce.yaml) is the overhead. The 28.3B boundaries are
// 28 inside its 4 nodes and 3 between them (p 32, nodes of 8), its
// activation 1024·1·6144·2 = 12,582,912 bytes, RoCE at 25 GB/s and 8 µs:
// their mean is the row's prediction, out of sample.
func TestTransferCalibration(t *testing.T) {
	v := validated(t)
	const small, large = 1024 * 6 * 2304 * 2, 1024 * 6144 * 2
	overhead := 0.601e-3 - 3e-6 - small/72e9
	if math.Abs(v.P2POverhead-overhead) > 1e-12 {
		t.Errorf("overhead %g s, want %g", v.P2POverhead, overhead)
	}
	intra := 3e-6 + overhead + large/72e9
	inter := 8e-6 + overhead + large/25e9
	want := 1e3 * (28*intra + 3*inter) / 31
	found := 0
	for _, r := range v.Rows {
		if r.Section != "stage" || r.Quantity != "T_comm" {
			continue
		}
		switch r.Config {
		case "1.5B (p 8, b 6)":
			found++
			if r.Calibration != "in" || math.Abs(r.Predicted-0.601) > 1e-9 {
				t.Errorf("1.5B T_comm: %g ms, calibration %q; want the measured 0.601, in", r.Predicted, r.Calibration)
			}
		case "28.3B (p 32, b 1)":
			found++
			if r.Calibration != "out" || math.Abs(r.Predicted-want) > 1e-9 {
				t.Errorf("28.3B T_comm: %g ms, calibration %q; want %g, out", r.Predicted, r.Calibration, want)
			}
		}
	}
	if found != 2 {
		t.Errorf("found %d of the 2 published T_comm rows", found)
	}
}
