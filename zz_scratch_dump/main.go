package main

import (
	"fmt"
	"os"
	"sort"

	"pipelab/results"
)

func main() {
	t, err := results.ReadDir(os.Args[1])
	if err != nil { fmt.Println(err); return }
	for _, d := range t.Delays { fmt.Printf("delay S=%d N=%d %s steps=%d rows=%d max=%d mean=%.3f p10=%.1f\n", d.Stages, d.Microbatches, d.Window, d.TimeSteps, d.Rows, d.Max, d.Mean, d.P10) }
	sort.Slice(t.Runs, func(i, j int) bool { a, b := t.Runs[i], t.Runs[j]; if a.CostModel != b.CostModel { return a.CostModel < b.CostModel }; if a.Stages != b.Stages { return a.Stages < b.Stages }; return a.Method < b.Method })
	for _, r := range t.Runs { if r.Selected { fmt.Printf("sel %s %s S=%d N=%d δ=%d H=%d γ=%g final=%.4g time=%.4g upd=%d %s wall=%.1f\n", r.CostModel, r.Method, r.Stages, r.Microbatches, r.Delta, r.LocalSteps, r.StepSize, r.FinalLoss, r.SimTime, r.BlockUpdates, r.Outcome, r.WallSeconds) } }
	var wall float64; for _, r := range t.Runs { wall += r.WallSeconds }; fmt.Printf("runs %d wall sum %.1f s\n", len(t.Runs), wall)
	for _, m := range t.Schedules { fmt.Printf("sched %s %s P=%d M=%d V=%d %s makespan=%.4g bubble=%.3f peak=%d mem=%.3g rank=%d\n", m.Family, m.CostModel, m.Ranks, m.Microbatches, m.Chunks, m.Level, m.Makespan, m.BubbleRatio, m.PeakActivations, float64(m.PeakMemoryBytes), m.FamilyRank) }
}
