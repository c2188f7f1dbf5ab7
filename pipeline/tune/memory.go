package tune

import (
	"fmt"
	"math"
	"slices"

	"pipelab/pipeline"
	"pipelab/pipeline/sim"
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
// state) of all its stages for the whole run. Right after a plain forward
// of stage s it holds at least that forward's activations, since the held
// total never falls below zero (an action that frees activations runs
// after the forward that kept them: a backward depends on its forward, on
// the same rank); that holds whatever the timing, policy or order. When
// held is not nil it gives, per rank, the most activations the rank holds
// at once (sim.FixedPeakActivations, which is what Simulate measures under
// the Fixed policy): at that moment the rank holds at least that many
// times the smallest ActivationBytes of the stages it runs forwards of.
// The rank's peak is at least its static bytes plus the larger of the two.
func memoryFloor(t *pipeline.Table, forwards []bool, held []int, mem sim.MemoryModel) float64 {
	ranks := t.Ranks()
	static := make([]float64, ranks)
	most := make([]float64, ranks)
	least := make([]float64, ranks)
	for r := range least {
		least[r] = math.Inf(1)
	}
	for s, r := range t.Placement {
		static[r] += mem.StaticBytes(s)
		if forwards[s] {
			a := mem.ActivationBytes(s)
			most[r], least[r] = max(most[r], a), min(least[r], a)
		}
	}
	floor := 0.0
	for r := range static {
		act := most[r]
		if held != nil && held[r] > 0 {
			act = max(act, float64(held[r])*least[r])
		}
		floor = max(floor, static[r]+act)
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
	g, err := sim.NewGPUModelPartition(p.Config, least.Partition)
	if err != nil {
		return fmt.Errorf("tune: %s: %w", least.Schedule, err)
	}
	static := make([]float64, least.Table.Ranks())
	for s, r := range least.Table.Placement {
		static[r] += g.StaticBytes(s)
	}
	const gib = 1 << 30
	return fmt.Errorf("tune: nothing fits in %.1f GiB per rank; the smallest peak found is %.1f GiB (%s, %d microbatches, partition %v), of which weights, gradients and optimizer state take %.1f GiB on its fullest rank",
		p.MemoryBytes/gib, least.PeakMemory/gib, least.Schedule, least.Microbatches, least.Partition, slices.Max(static)/gib)
}
