package pipeline

import (
	"strings"
	"testing"
)

// TestLocalSGDGridLength checks the measured step count of docs/reference.md
// §1.5 for R = S: T = q(2RH + 2S - 2) + [r > 0](2r + 2S - 2), with
// q = ⌊N/RH⌋ and r = N mod RH.
func TestLocalSGDGridLength(t *testing.T) {
	for _, s := range []int{1, 2, 3, 4, 8} {
		for _, h := range []int{1, 2, 5} {
			for _, n := range []int{1, 3, 7, 16, 40, 41} {
				rh := s * h
				q, r := n/rh, n%rh
				want := q * (2*rh + 2*s - 2)
				if r > 0 {
					want += 2*r + 2*s - 2
				}
				tb := mustGenerate(t, "localsgd", Shape{Ranks: s, Microbatches: n, LocalSteps: h})
				if got := gridLength(tb); got != want {
					t.Errorf("S=R=%d H%d N%d: %d steps, want %d", s, h, n, got, want)
				}
				if tb.Update != ReplicaAveraging || tb.Replicas != s || tb.LocalSteps != h {
					t.Errorf("S%d H%d: update %s, R %d, H %d", s, h, tb.Update, tb.Replicas, tb.LocalSteps)
				}
			}
		}
	}
}

// TestLocalSGDReplicaOrder checks the replica rule on the grid itself:
// within a round, F(m, s) runs after B(m-R, s), since replica m mod R
// steps its weights between its microbatches.
func TestLocalSGDReplicaOrder(t *testing.T) {
	const s, h, n, replicas = 3, 2, 20, 2
	tb := mustGenerate(t, "localsgd", Shape{Ranks: s, Microbatches: n, Replicas: replicas, LocalSteps: h})
	for stage, row := range tb.Rows {
		column := map[Action]int{}
		for c, a := range row {
			column[a] = c
		}
		for m := range n {
			if m%(replicas*h) < replicas {
				continue
			}
			if column[F(stage, m)] <= column[B(stage, m-replicas)] {
				t.Errorf("stage %d: F%d at %d, not after B%d at %d", stage, m, column[F(stage, m)], m-replicas, column[B(stage, m-replicas)])
			}
		}
	}
}

func TestLocalSGDNeedsLocalSteps(t *testing.T) {
	_, err := Generate("localsgd", Shape{Ranks: 4, Microbatches: 8})
	if err == nil || !strings.Contains(err.Error(), "local steps") {
		t.Fatalf("no H: %v, want the local-steps constraint named", err)
	}
}
