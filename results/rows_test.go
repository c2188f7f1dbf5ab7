package results

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Random rows for the round-trip tests: every column gets values that
// differ between rows, so a column read into the wrong field or from the
// wrong row cannot pass.

func newRand(stream uint64) *rand.Rand { return rand.New(rand.NewPCG(20261130, stream)) }

func pick(r *rand.Rand, xs ...string) string { return xs[r.IntN(len(xs))] }

func genRuns(n int) []Run {
	r := newRand(1)
	rows := make([]Run, n)
	for i, id := range r.Perm(n) {
		rows[i] = Run{
			RunID:             fmt.Sprintf("run-%04d", id),
			Experiment:        pick(r, "fig2", "fig3", "scaling"),
			Objective:         pick(r, "quadratic", "tridiagonal", "logistic", "charlm"),
			Method:            pick(r, "pipedream", "rpd", "localsgd", "sgd"),
			Stages:            int32(1 << r.IntN(8)),
			TotalMicrobatches: r.Int32N(5000),
			TimeBudget:        float64(r.IntN(4000)),
			StepSize:          math.Ldexp(1, -r.IntN(12)),
			BatchSize:         r.Int32N(200),
			N:                 r.Int32N(3000),
			D:                 r.Int32N(1024),
			Noise:             float64(r.IntN(5)) / 4,
			Delta:             r.Int32N(500),
			Replicas:          r.Int32N(64),
			LocalSteps:        r.Int32N(30),
			Seed:              r.Uint64(),
			Replicate:         r.Int32N(3),
			CostModel:         pick(r, CostUnit, CostGPU),
			Outcome:           OutcomeOK,
			FinalLoss:         r.Float64(),
			SimTime:           r.Float64() * 1e4,
			BlockUpdates:      r.Int64N(1 << 40),
			SelectionRule:     pick(r, "best-final", "stable"),
			Selected:          r.IntN(2) == 0,
			WallSeconds:       r.Float64() * 100,
			ToolVersion:       "v0.1.0",
			TargetLoss:        float64(r.IntN(3)) / 2,
			HeldOutLoss:       r.Float64(),
			SelectionBound:    pick(r, "", BoundLower, BoundUpper, BoundFixed),
			MethodSettings:    pick(r, "", "dc_lambda=2"),
		}
		// Settings that do not apply are 0 in Go (null in the file), and
		// RPD has no simulated time.
		switch rows[i].Method {
		case MethodRPD:
			rows[i].Replicas, rows[i].LocalSteps, rows[i].SimTime = 0, 0, math.NaN()
			rows[i].DelayModel = pick(r, DelayUniform, DelayPipeDreamMean, DelayPipeDreamProfile)
		case MethodLocalSGD:
			rows[i].Delta = 0
		default:
			rows[i].Delta, rows[i].Replicas, rows[i].LocalSteps = 0, 0, 0
		}
		if i%3 == 0 {
			rows[i].TimeBudget = 0
		}
		if i%5 == 0 {
			rows[i].Outcome = OutcomeDiverged
			rows[i].FinalLoss = []float64{math.NaN(), math.Inf(1)}[i%2]
		}
	}
	return rows
}

func genCurves(runs, points int) []CurvePoint {
	r := newRand(2)
	var rows []CurvePoint
	for run := range runs {
		for k := range points {
			rows = append(rows, CurvePoint{
				RunID:        fmt.Sprintf("run-%04d", run),
				Time:         float64(k) * 2.5,
				BlockUpdates: int64(k * 8),
				Loss:         math.Exp(-float64(k)/50) + r.Float64()*1e-3,
			})
		}
	}
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	return rows
}

func genDelays() []DelayStat {
	r := newRand(3)
	var rows []DelayStat
	for _, s := range []int32{128, 2, 16, 4, 64, 8, 32} {
		for _, w := range []string{WindowAll, WindowSteady} {
			rows = append(rows, DelayStat{
				Method: "pipedream", Kind: "pipedream", Stages: s, TotalMicrobatches: 10 * s, Window: w, Stage: AllStages,
				TimeSteps: int64(22 * s), Rows: int64(10 * s * s),
				Max: r.Int64N(20000), Mean: r.Float64() * 1e4, P10: r.Float64() * 1e3,
			})
		}
		// The per-stage rows of the delay-profiles figure.
		for st := range min(s, 4) {
			rows = append(rows, DelayStat{
				Method: pick(r, "pipedream", "2bw"), Kind: pick(r, "pipedream", "zb-h1"), Stages: s, TotalMicrobatches: 10 * s,
				Window: WindowSteady, Stage: st, TimeSteps: int64(22 * s), Rows: int64(5 * s),
				Max: r.Int64N(2000), Mean: r.Float64() * 1e3, P10: r.Float64() * 1e2,
			})
		}
	}
	return rows
}

func genDelayRows() []DelayRow {
	r := newRand(4)
	var rows []DelayRow
	for k := int64(40); k >= 1; k-- {
		for s := range int32(4) {
			rows = append(rows, DelayRow{Stages: 4, TotalMicrobatches: 10, Update: k, Stage: s, Delay: r.Int64N(15)})
		}
	}
	return rows
}

func genTimeline() []TimelineEvent {
	r := newRand(5)
	kinds := []string{"F", "B", "I", "W", "SEND_F", "RECV_B", "REDUCE_GRAD"}
	var rows []TimelineEvent
	for _, id := range []string{"zb-h1/p4m8", "1f1b/p4m8"} {
		for rank := int32(3); rank >= 0; rank-- {
			for i := range int32(12) {
				start := float64(i) + r.Float64()
				rows = append(rows, TimelineEvent{
					ScheduleID: id, Rank: rank, Index: i, Kind: kinds[r.IntN(len(kinds))],
					Stage: rank, Microbatch: r.Int32N(9) - 1, Start: start, End: start + r.Float64(),
				})
			}
		}
	}
	return rows
}

func genSchedules() []ScheduleMetric {
	r := newRand(6)
	var rows []ScheduleMetric
	for _, f := range []string{"zb-v", "gpipe", "chimera", "1f1b"} {
		for _, l := range []string{LevelSimulated, LevelFormula, LevelLockstep} {
			rows = append(rows, ScheduleMetric{
				ScheduleID: f + "/p4m8", Family: f, Ranks: 4, Microbatches: 8, Chunks: r.Int32N(3) + 1,
				CostModel: CostGPU, Level: l, Makespan: r.Float64() * 10, BubbleRatio: r.Float64(),
				PeakActivations: float64(r.Int32N(64)) / 4, PeakMemoryBytes: r.Int64N(1 << 36), KindRank: r.Int32N(4) + 1,
			})
		}
	}
	return rows
}
