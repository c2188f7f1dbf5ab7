package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/pipelab/pipelab/internal/cputime"
	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// benchTable is 1F1B on 64 ranks with 1024 microbatches: 131072 compute
// actions and 129024 transfers.
func benchTable(b *testing.B) *pipeline.Table {
	b.Helper()
	tb, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 64, Microbatches: 1024})
	if err != nil {
		b.Fatal(err)
	}
	return tb
}

var benchCost = cost.Explicit{TF: 1, TB: 2, Comm: 0.25}

// BenchmarkSimulate1F1B64x1024 times the event simulator with
// communication; actions/s counts the timed events (computes and
// transfers).
func BenchmarkSimulate1F1B64x1024(b *testing.B) {
	tb := benchTable(b)
	events := 0
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		tl, err := Simulate(tb, benchCost, Options{})
		if err != nil {
			b.Fatal(err)
		}
		events = len(tl.Events)
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "actions/s")
	cpu.report(b, events)
}

// cpuClock measures a benchmark's process CPU time, which a shared machine
// inflates less than the wall clock.
type cpuClock struct {
	start time.Duration
	ok    bool
}

func startCPU() cpuClock {
	t, ok := cputime.Process()
	return cpuClock{t, ok}
}

// report adds CPU time per operation and, for events > 0, timed events
// per CPU second.
func (c cpuClock) report(b *testing.B, events int) {
	end, ok := cputime.Process()
	if !c.ok || !ok || b.N == 0 {
		return
	}
	per := float64(end-c.start) / float64(b.N)
	b.ReportMetric(per, "cpu-ns/op")
	if events > 0 {
		b.ReportMetric(float64(events)/per*1e9, "actions/cpu-s")
	}
}

// BenchmarkWalkTable1F1B64x1024 is the baseline: one pass over the same
// table pricing every action, nothing else.
func BenchmarkWalkTable1F1B64x1024(b *testing.B) {
	tb := benchTable(b)
	actions := 0
	var total float64
	b.ReportAllocs()
	for b.Loop() {
		actions, total = 0, 0
		for _, row := range tb.Rows {
			for _, a := range row {
				if a.IsBubble() {
					continue
				}
				actions++
				total += benchCost.Compute(a)
			}
		}
	}
	if total == 0 {
		b.Fatal("no work priced")
	}
	b.ReportMetric(float64(actions)*float64(b.N)/b.Elapsed().Seconds(), "actions/s")
}

// BenchmarkRankStats1F1B64x1024 times the per-rank statistics "pipelab
// simulate" prints (busy, idle, comm wait, peak activations) on the
// timeline of BenchmarkSimulate1F1B64x1024; actions/s counts its events.
func BenchmarkRankStats1F1B64x1024(b *testing.B) {
	tl, err := Simulate(benchTable(b), benchCost, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		RankStats(tl, nil)
	}
	b.ReportMetric(float64(len(tl.Events))*float64(b.N)/b.Elapsed().Seconds(), "actions/s")
}

// The Ready policy on the same table, with the table hint: as planned it
// first times the plan (one fixed run) and then dispatches from the queues;
// without patience it dispatches only. Compare with
// BenchmarkSimulate1F1B64x1024 in the same run.
func BenchmarkSimulateReadyPlan1F1B64x1024(b *testing.B) {
	benchReady(b, WaitAsPlanned)
}

func BenchmarkSimulateReadyNoWait1F1B64x1024(b *testing.B) {
	benchReady(b, NoWait)
}

func benchReady(b *testing.B, p Patience) {
	tb := benchTable(b)
	events := 0
	b.ReportAllocs()
	for b.Loop() {
		tl, err := Simulate(tb, benchCost, Options{Policy: Ready, Patience: p})
		if err != nil {
			b.Fatal(err)
		}
		events = len(tl.Events)
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "actions/s")
}

// BenchmarkSimulateShapes times the fixed-order simulation of 1F1B with
// communication over P ∈ {8, 32, 128} ranks × M ∈ {64, 512, 4096}
// microbatches: cpu-ns/event should stay flat if the cost is linear in
// P·M (2PM computes and 2(P-1)M transfers).
func BenchmarkSimulateShapes(b *testing.B) {
	for _, p := range []int{8, 32, 128} {
		for _, m := range []int{64, 512, 4096} {
			b.Run(fmt.Sprintf("P=%d/M=%d", p, m), func(b *testing.B) {
				tb, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: p, Microbatches: m})
				if err != nil {
					b.Fatal(err)
				}
				events := 0
				cpu := startCPU()
				for b.Loop() {
					tl, err := Simulate(tb, benchCost, Options{})
					if err != nil {
						b.Fatal(err)
					}
					events = len(tl.Events)
				}
				if end, ok := cputime.Process(); ok && cpu.ok {
					b.ReportMetric(float64(end-cpu.start)/float64(b.N*events), "cpu-ns/event")
				}
				b.ReportMetric(float64(events), "events")
			})
		}
	}
}
