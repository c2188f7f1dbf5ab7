package tune

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// forwardStages returns, per stage, whether the table runs a plain
// forward (F) of it: OVERLAP_F_B is left out because sim.PeakMemory
// reads a rank's held activations only after a whole event, and the
// backward inside an overlapped event may free as much as its forward
// keeps.
func forwardStages(t *pipeline.Table) []bool {
	out := make([]bool, t.Stages())
	for _, row := range t.Rows {
		for _, a := range row {
			if a.Kind == pipeline.Forward && a.Stage >= 0 && a.Stage < len(out) {
				out[a.Stage] = true
			}
		}
	}
	return out
}

// memoryFloor is a lower bound on the largest per-rank peak that
// sim.PeakMemory would report for the table under mem, computed without
// simulating. A rank holds the static bytes (weights, gradients, optimizer
// state) of all its stages for the whole run: with Routes, mem prices a
// stage as the part it replicates (cost.GPUForTablePartition), so a
// Chimera rank holds both its replicas' bytes. Right after a plain forward
// of stage s it holds at least that forward's activations, since the held
// total never falls below zero (an action that frees activations runs
// after the forward that kept them: a backward depends on its forward, on
// the same rank, and a split backward's I and W free no more than the
// forward kept, M_B − M_W and M_W with M_W ≤ M_B); that holds whatever the
// timing, policy or order, and is the bound under the Ready policy.
//
// Under the Fixed policy (fixed) each rank runs its row in order, so
// its peak depends on the order alone and is known without simulating:
// sim.FixedPeakMemory, the sums sim.PeakMemory makes in the order it makes
// them, so the floor equals the simulated peak to the bit. (A count of
// held microbatches times their least bytes, sim.FixedPeakActivations
// times the smallest M_B, was the bound before the Zero Bubble split was
// priced; since a split backward holds only M_W between its I and its W,
// the count would now have to be priced at the smallest M_W, a weaker
// bound than the walk.)
func memoryFloor(t *pipeline.Table, forwards []bool, fixed bool, mem cost.Memory) float64 {
	if fixed {
		return slices.Max(sim.FixedPeakMemory(t, mem))
	}
	ranks := t.Ranks()
	static := make([]float64, ranks)
	most := make([]float64, ranks)
	for s, r := range t.Placement {
		static[r] += mem.StaticBytes(s)
		if forwards[s] {
			most[r] = max(most[r], mem.ActivationBytes(s))
		}
	}
	floor := 0.0
	for r := range static {
		floor = max(floor, static[r]+most[r])
	}
	return floor
}

// nothingFits is Tune's error when no candidate fits; found holds each
// search's best (nil where skipped). It names the limit and, of those,
// the one with the smallest simulated peak, with the static bytes
// (weights, gradients, optimizer state) of its fullest rank, which no
// schedule can shed. Bounded ones are simulated here, once each, so that
// the peak named is a simulated one.
func nothingFits(p Problem, found []*Candidate) error {
	var least *Candidate
	for _, c := range found {
		if c == nil {
			continue
		}
		if c.bounded {
			var err error
			if c, err = simulate(p, c.Table, c.Schedule, c.Partition); err != nil {
				return err
			}
		}
		if least == nil || c.PeakMemory < least.PeakMemory {
			least = c
		}
	}
	g, err := cost.GPUForTablePartition(p.Config, least.Table, least.Partition)
	if err != nil {
		return fmt.Errorf("tune: %s: %w", least.Schedule, err)
	}
	static := make([]float64, least.Table.Ranks())
	for s, r := range least.Table.Placement {
		static[r] += g.StaticBytes(s)
	}
	const gb = 1e9 // GB, the unit of the GPU presets' memory
	return fmt.Errorf("tune: %w in %.1f GB per rank; the smallest peak found is %.1f GB (%s, %d microbatches, partition %v), of which weights, gradients and optimizer state take %.1f GB on its fullest rank",
		ErrNothingFits, p.MemoryBytes/gb, least.PeakMemory/gb, least.Schedule, least.Microbatches, least.Partition, slices.Max(static)/gb)
}

// ErrNothingFits is the error Tune returns when no candidate fits the
// memory limit: the workload is too large for the GPUs, an input error.
var ErrNothingFits = errors.New("nothing fits")
