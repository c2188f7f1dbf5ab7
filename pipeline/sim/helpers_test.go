package sim

import (
	"math"
	"slices"

	"github.com/pipelab/pipelab/pipeline/cost"
)

// decoderOnly is n GPT-style layers (4h GELU MLP, full attention) with no
// embedding or head, so a stage's cost is its layers' and nothing else.
func decoderOnly(n, h, heads int) cost.Network {
	return cost.Network{Name: "decoder-only", Blocks: []cost.Block{{Kind: cost.Decoder, Count: n, Hidden: h, Heads: heads, FFN: 4 * h}}}
}

func near(got, want float64) bool { return math.Abs(got-want) <= 1e-12*math.Abs(want) }

func equalInts(a, b []int) bool { return slices.Equal(a, b) }

// rankEvents returns each rank's compute events in the order they ran.
func rankEvents(tl *Timeline) [][]Event {
	byRank := rankCompute(tl)
	out := make([][]Event, len(byRank))
	for r, idx := range byRank {
		for _, i := range idx {
			out[r] = append(out[r], tl.Events[i])
		}
	}
	return out
}
