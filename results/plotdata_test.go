package results

import (
	"fmt"
	"math"
	"strings"
)

// Data for the plot tests, each from a closed form or a measured value of
// docs/reference.md, so the figures look like the ones the experiments draw.

// lossRuns returns runs of PipeDream, RPD at two delay bounds and LocalSGD
// with curves f(t) = f0·ρ^t (the linear rate of gradient descent on a
// strongly convex quadratic), logged every 10 steps up to 400.
func lossRuns() ([]Run, []CurvePoint) {
	methods := []struct {
		method string
		delta  int32
		rho    float64
	}{
		{"pipedream", 0, 0.990}, {"rpd", 8, 0.992}, {"rpd", 30, 0.995}, {"localsgd", 0, 0.985},
	}
	var runs []Run
	var curves []CurvePoint
	for i, m := range methods {
		id := fmt.Sprintf("fig1-%d", i)
		runs = append(runs, Run{RunID: id, Experiment: "fig1", Objective: "quadratic", Method: m.method, Stages: 8,
			Delta: m.delta, CostModel: CostUnit, Outcome: OutcomeOK, StepSize: 0.0625})
		for t := 0; t <= 400; t += 10 {
			curves = append(curves, CurvePoint{RunID: id, Time: float64(t), BlockUpdates: int64(4 * t), Loss: 2 * math.Pow(m.rho, float64(t))})
		}
	}
	return runs, curves
}

// scalingRuns returns final losses over S = 2..128 for three methods, two
// seeds each: f = c·S^a, power laws that are straight lines on log-log axes.
func scalingRuns() []Run {
	var runs []Run
	for _, m := range []struct {
		method string
		c, a   float64
	}{{"pipedream", 0.01, 1.5}, {"rpd", 0.012, 1.2}, {"localsgd", 0.02, 0.5}} {
		for s := int32(2); s <= 128; s *= 2 {
			for seed := range uint64(2) {
				runs = append(runs, Run{
					RunID: fmt.Sprintf("%s-S%d-%d", m.method, s, seed), Objective: "logistic", Method: m.method, Stages: s,
					Seed: seed, TimeBudget: 3180, CostModel: CostUnit, Outcome: OutcomeOK, Selected: true,
					FinalLoss: m.c * math.Pow(float64(s), m.a) * (1 + 0.05*float64(seed)),
				})
			}
		}
	}
	return runs
}

// delayStats: for S = 4 and 8 the measured steady-window max and mean of
// docs/reference.md §1.3 (14, 7.55; 60, 31.65); elsewhere max ⌊S² - S/2⌋ and
// mean S²/2, the growth that section states.
func delayStats() []DelayStat {
	var stats []DelayStat
	for s := int32(2); s <= 64; s *= 2 {
		d := DelayStat{Stages: s, TotalMicrobatches: 10 * s, Window: WindowSteady,
			Max: int64(math.Floor(delayBound(float64(s)))), Mean: float64(s*s) / 2}
		switch s {
		case 4:
			d.Max, d.Mean = 14, 7.55
		case 8:
			d.Max, d.Mean = 60, 31.65
		}
		stats = append(stats, d)
	}
	return stats
}

// pipedreamGrid is the unit-time PipeDream rendering of docs/reference.md §1.2
// (S = 4, N = 12, first 30 steps; microbatches numbered from 1).
const pipedreamGrid = `
rank 0:  F1  F2  F3  F4   .   .   .  B1  F5  B2  F6  B3  F7  B4  F8  B5  F9  B6 F10  B7 F11  B8 F12  B9   . B10   . B11   . B12
rank 1:   .  F1  F2  F3  F4   .  B1   .  B2  F5  B3  F6  B4  F7  B5  F8  B6  F9  B7 F10  B8 F11  B9 F12 B10   . B11   . B12   .
rank 2:   .   .  F1  F2  F3  B1  F4  B2   .  B3  F5  B4  F6  B5  F7  B6  F8  B7  F9  B8 F10  B9 F11 B10 F12 B11   . B12   .   .
rank 3:   .   .   .  F1  B1  F2  B2  F3  B3  F4  B4  F5  B5  F6  B6  F7  B7  F8  B8  F9  B9 F10 B10 F11 B11 F12 B12   .   .   .`

// pipedreamEvents reads pipedreamGrid as timeline rows: the cell in column
// c runs from c to c+1, microbatches renumbered from 0.
func pipedreamEvents() []TimelineEvent {
	var events []TimelineEvent
	for _, line := range strings.Split(strings.TrimSpace(pipedreamGrid), "\n") {
		var rank int32
		head, cells, _ := strings.Cut(line, ":")
		fmt.Sscanf(head, "rank %d", &rank)
		for c, cell := range strings.Fields(cells) {
			if cell == "." {
				continue
			}
			var mb int32
			fmt.Sscanf(cell[1:], "%d", &mb)
			events = append(events, TimelineEvent{ScheduleID: "pipedream/p4m12", Rank: rank, Index: int32(c),
				Kind: cell[:1], Stage: rank, Microbatch: mb - 1, Start: float64(c), End: float64(c + 1)})
		}
	}
	return events
}

// scheduleMetrics prices GPipe, 1F1B, ZB-H1 and ZB-H2 at p = 4, m = 8 with
// T_F = T_B = T_W = 1 by the closed forms of docs/reference.md §2: compute
// m(T_F + T_B + T_W) per rank plus the family's bubble; peaks m, p, p and
// 2p - 1 microbatches.
func scheduleMetrics() []ScheduleMetric {
	const p, m, tf, tb, tw = 4.0, 8.0, 1.0, 1.0, 1.0
	work := m * (tf + tb + tw)
	families := []struct {
		name   string
		bubble float64
		peak   float64
	}{
		{"gpipe", (p - 1) * (tf + tb + tw), m},
		{"1f1b", (p - 1) * (tf + tb + tw), p},
		{"zb-h1", (p - 1) * (tf + tb - tw), p},
		{"zb-h2", (p - 1) * (tf + tb - 2*tw), 2*p - 1},
	}
	var out []ScheduleMetric
	for _, f := range families {
		out = append(out, ScheduleMetric{ScheduleID: f.name + "/p4m8", Family: f.name, Ranks: p, Microbatches: m, Chunks: 1,
			CostModel: CostUnit, Level: LevelFormula, Makespan: work + f.bubble, BubbleRatio: f.bubble / (work + f.bubble),
			PeakActivations: f.peak})
	}
	RankKinds(out)
	return out
}
