package experiments

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/pipelab/pipelab/results"
)

// tablesSpecs are small specs that together write every table an
// experiment writes: runs and curves of three methods (RPD at δ = 0 among
// them) over two replicates, delays, and schedules with their timeline
// under the unit and the GPU cost model.
var tablesSpecs = []string{`experiment: conv
seed: 3
seeds: 2
objectives: [quadratic]
n: 40
d: 8
batch_size: 4
stages: [2]
total_microbatches: [20]
methods:
  - {name: pipedream, step_sizes: {values: [0.05, 0.1]}}
  - {name: rpd, deltas: [0, 3], step_sizes: {values: [0.05, 0.1]}}
  - {name: localsgd, local_steps: [2], step_sizes: {values: [0.05]}}
`, `experiment: dl
measure: delays
stages: [2, 4]
delay_rows: true
`, `experiment: sched
measure: schedules
kinds: [gpipe, 1f1b, zb-h1, interleaved-1f1b]
ranks: [4]
microbatches: [8]
`, `experiment: sched-gpu
measure: schedules
kinds: [gpipe, 1f1b]
ranks: [4]
microbatches: [8]
cost: {cost_model: gpu, model: gpt-1.3b, gpu: a100, link: nvlink, microbatch_size: 1, seq_len: 2048}
`}

// tablesDir runs tablesSpecs as a sweep does (Stamp, then WriteDataset)
// and returns the results directory.
func tablesDir(t *testing.T) string {
	t.Helper()
	d := &results.Tables{}
	for _, src := range tablesSpecs {
		for _, r := range mustSpec(t, src).Expand() {
			out, err := Execute(context.Background(), r)
			if err != nil {
				t.Fatalf("%s: %v", r.Name, err)
			}
			Stamp(out, r, 0)
			AppendTables(d, out)
		}
	}
	dir := t.TempDir()
	if err := WriteDataset(dir, d); err != nil {
		t.Fatal(err)
	}
	return dir
}

// readPQ reads a table of dir with parquet-go, the independent reader,
// into the columns R names.
func readPQ[R any](t *testing.T, dir, file string) []R {
	t.Helper()
	rows, err := parquet.ReadFile[R](filepath.Join(dir, file))
	if err != nil {
		t.Fatalf("parquet-go: %s: %v", file, err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows", file)
	}
	return rows
}

// unique fails if two rows have the same key.
func unique[R any](t *testing.T, file string, rows []R, key func(R) string) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range rows {
		k := key(r)
		if seen[k] {
			t.Errorf("%s: key %s is not unique", file, k)
		}
		seen[k] = true
	}
}

// The key docs/results.md documents for each table is unique in the rows
// a sweep writes, as an independent Parquet reader sees them, and every
// row carries its run id and experiment.
func TestTableKeysUnique(t *testing.T) {
	dir := tablesDir(t)
	type ids struct {
		RunID      string `parquet:"run_id"`
		Experiment string `parquet:"experiment"`
	}
	hasIDs := func(file string, rows []ids) {
		for _, r := range rows {
			if r.RunID == "" || r.Experiment == "" {
				t.Fatalf("%s: a row without run_id or experiment: %+v", file, r)
			}
		}
	}
	t.Run("runs", func(t *testing.T) {
		rows := readPQ[struct {
			RunID string `parquet:"run_id"`
		}](t, dir, results.RunsFile)
		unique(t, results.RunsFile, rows, func(r struct {
			RunID string `parquet:"run_id"`
		}) string {
			return r.RunID
		})
		if len(rows) != 2*(2+4+1) {
			t.Errorf("%d runs, want 14 (2 replicates × (2 pipedream + 4 rpd + 1 localsgd))", len(rows))
		}
		hasIDs(results.RunsFile, readPQ[ids](t, dir, results.RunsFile))
	})
	t.Run("curves", func(t *testing.T) {
		type key struct {
			RunID        string `parquet:"run_id"`
			BlockUpdates int64  `parquet:"block_updates"`
		}
		unique(t, results.CurvesFile, readPQ[key](t, dir, results.CurvesFile), func(k key) string { return fmt.Sprint(k) })
		hasIDs(results.CurvesFile, readPQ[ids](t, dir, results.CurvesFile))
	})
	t.Run("delays", func(t *testing.T) {
		type key struct {
			RunID       string `parquet:"run_id"`
			DelayWindow string `parquet:"delay_window"`
			Stage       *int32 `parquet:"stage,optional"` // null: every stage
		}
		rows := readPQ[key](t, dir, results.DelaysFile)
		unique(t, results.DelaysFile, rows, func(k key) string {
			stage := "all"
			if k.Stage != nil {
				stage = fmt.Sprint(*k.Stage)
			}
			return k.RunID + "/" + k.DelayWindow + "/" + stage
		})
		if len(rows) != 4 {
			t.Errorf("%d delay rows, want 4 (2 stage counts × 2 windows)", len(rows))
		}
		hasIDs(results.DelaysFile, readPQ[ids](t, dir, results.DelaysFile))
	})
	t.Run("timeline", func(t *testing.T) {
		type key struct {
			ScheduleID  string `parquet:"schedule_id"`
			Rank        int32  `parquet:"rank"`
			ActionIndex int32  `parquet:"action_index"`
			Kind        string `parquet:"action_kind"`
		}
		rows := readPQ[key](t, dir, results.TimelineFile)
		unique(t, results.TimelineFile, rows, func(k key) string { return fmt.Sprint(k.ScheduleID, k.Rank, k.ActionIndex) })
		sends := 0
		for _, r := range rows {
			if r.Kind == "SEND_F" || r.Kind == "SEND_B" {
				sends++
			}
		}
		// The GPU-timed schedules send activations and gradients between
		// ranks: the rows the simulator's own index (-1) left without a key.
		if sends == 0 {
			t.Error("no SEND rows: the test does not cover the transfers")
		}
		hasIDs(results.TimelineFile, readPQ[ids](t, dir, results.TimelineFile))
	})
	t.Run("schedules", func(t *testing.T) {
		type key struct {
			ScheduleID string `parquet:"schedule_id"`
		}
		unique(t, results.SchedulesFile, readPQ[key](t, dir, results.SchedulesFile), func(k key) string { return k.ScheduleID })
		hasIDs(results.SchedulesFile, readPQ[ids](t, dir, results.SchedulesFile))
	})
}

// Row types of the figure queries' columns, as parquet-go reads them;
// pointers are the nullable columns.
type (
	qRun struct {
		RunID             string   `parquet:"run_id"`
		Experiment        string   `parquet:"experiment"`
		Method            string   `parquet:"method"`
		Stages            int32    `parquet:"stages"`
		TotalMicrobatches int32    `parquet:"total_microbatches"`
		StepSize          float64  `parquet:"step_size"`
		Delta             *int32   `parquet:"delta,optional"`
		LocalSteps        *int32   `parquet:"local_steps,optional"`
		Replicate         int32    `parquet:"replicate"`
		Outcome           string   `parquet:"outcome"`
		CostModel         string   `parquet:"cost_model"`
		FinalLoss         float64  `parquet:"final_loss"`
		SimTime           *float64 `parquet:"sim_time,optional"`
		BlockUpdates      int64    `parquet:"block_updates"`
		Selected          bool     `parquet:"selected"`
	}
	qCurve struct {
		RunID        string   `parquet:"run_id"`
		SimTime      *float64 `parquet:"sim_time,optional"`
		BlockUpdates int64    `parquet:"block_updates"`
		Loss         float64  `parquet:"loss"`
	}
	qSchedule struct {
		ScheduleID      string  `parquet:"schedule_id"`
		Family          string  `parquet:"kind"`
		Ranks           int32   `parquet:"ranks"`
		Microbatches    int32   `parquet:"microbatches"`
		CostModel       string  `parquet:"cost_model"`
		Model           *string `parquet:"model,optional"`
		GPU             *string `parquet:"gpu,optional"`
		Link            *string `parquet:"link,optional"`
		Level           string  `parquet:"level"`
		Makespan        float64 `parquet:"makespan"`
		BubbleRatio     float64 `parquet:"bubble_ratio"`
		PeakActivations float64 `parquet:"peak_activations"`
		KindRank        int32   `parquet:"kind_rank"`
	}
	qEvent struct {
		ScheduleID string  `parquet:"schedule_id"`
		Rank       int32   `parquet:"rank"`
		EndTime    float64 `parquet:"end_time"`
	}
	qDelay struct {
		Stages      int32  `parquet:"stages"`
		DelayWindow string `parquet:"delay_window"`
		Max         int64  `parquet:"max"`
	}
)

// TestFigureQueries runs the equivalent of each query of docs/results.md's
// "Figure queries" through parquet-go on a small sweep (the experiment
// names are this test's specs') and checks the answers against closed
// forms.
func TestFigureQueries(t *testing.T) {
	dir := tablesDir(t)
	runs := readPQ[qRun](t, dir, results.RunsFile)
	curves := readPQ[qCurve](t, dir, results.CurvesFile)
	byID := map[string]qRun{}
	for _, r := range runs {
		byID[r.RunID] = r
	}

	t.Run("delays", func(t *testing.T) {
		// WHERE delay_window = 'steady': max = ⌊S² − S/2⌋ (docs/reference.md §1.3).
		n := 0
		for _, d := range readPQ[qDelay](t, dir, results.DelaysFile) {
			if d.DelayWindow != results.WindowSteady {
				continue
			}
			n++
			s := int64(d.Stages)
			if want := s*s - s/2; d.Max != want {
				t.Errorf("S = %d: max %d, want ⌊S² − S/2⌋ = %d", s, d.Max, want)
			}
		}
		if n != 2 {
			t.Errorf("%d steady rows, want 2", n)
		}
	})

	t.Run("pd-vs-rpd", func(t *testing.T) {
		// runs JOIN curves USING (run_id) WHERE selected: pipedream's
		// delta is null, RPD's deltas are 0 and 3, and each run's last
		// record is at N·S block updates (S = 2, N = 20).
		deltas := map[string]map[string]bool{}
		last := map[string]int64{}
		for _, c := range curves {
			r := byID[c.RunID]
			if r.Experiment != "conv" || !r.Selected {
				continue
			}
			d := "null"
			if r.Delta != nil {
				d = fmt.Sprint(*r.Delta)
			}
			if deltas[r.Method] == nil {
				deltas[r.Method] = map[string]bool{}
			}
			deltas[r.Method][d] = true
			last[r.RunID] = max(last[r.RunID], c.BlockUpdates)
		}
		if !deltas["pipedream"]["null"] || len(deltas["pipedream"]) != 1 || !deltas["rpd"]["0"] || !deltas["rpd"]["3"] || deltas["rpd"]["null"] {
			t.Errorf("deltas by method %v, want pipedream {null}, rpd {0, 3}", deltas)
		}
		for id, k := range last {
			if k != 40 {
				t.Errorf("run %s (%s): last record at %d block updates, want N·S = 40", id, byID[id].Method, k)
			}
		}
	})

	t.Run("loss vs time", func(t *testing.T) {
		// WHERE sim_time IS NOT NULL keeps every record but RPD's; the
		// last pipedream record is at 2N + 2S − 2 = 42 steps (§1.2).
		end := map[string]float64{}
		for _, c := range curves {
			r := byID[c.RunID]
			if (c.SimTime == nil) != (r.Method == results.MethodRPD) {
				t.Fatalf("run %s (%s): sim_time %v; want null exactly for rpd", c.RunID, r.Method, c.SimTime)
			}
			if c.SimTime != nil && r.Method == "pipedream" {
				end[c.RunID] = max(end[c.RunID], *c.SimTime)
			}
		}
		if len(end) != 4 {
			t.Errorf("%d pipedream curves, want 4", len(end))
		}
		for id, e := range end {
			if e != 42 {
				t.Errorf("run %s: last record at %g steps, want 2N + 2S − 2 = 42", id, e)
			}
		}
		for _, r := range runs {
			if (r.SimTime == nil) != (r.Method == results.MethodRPD) {
				t.Errorf("run %s (%s): runs.sim_time %v; want null exactly for rpd", r.RunID, r.Method, r.SimTime)
			}
		}
	})

	t.Run("scaling", func(t *testing.T) {
		// GROUP BY method, delta, local_steps, stages over the selected
		// runs: one selected step size per group, so as many rows as
		// replicates (2).
		count := map[string]int{}
		for _, r := range runs {
			if r.Selected && r.Outcome == results.OutcomeOK {
				count[fmt.Sprint(r.Method, r.Delta != nil && *r.Delta == 3, r.LocalSteps != nil, r.Stages)]++
			}
		}
		if len(count) != 4 {
			t.Errorf("%d groups %v, want 4 (pipedream, rpd δ = 0, rpd δ = 3, localsgd)", len(count), count)
		}
		for g, n := range count {
			if n != 2 {
				t.Errorf("group %s: %d rows, want 2 replicates", g, n)
			}
		}
	})

	t.Run("replicates paired", func(t *testing.T) {
		// runs a JOIN runs b USING (experiment, cost_model, replicate,
		// stages, step_size) WHERE a pipedream, b rpd: one partner per δ
		// (0 and 3), so 2 replicates × 2 step sizes × 2 δ pairs.
		pairs := 0
		for _, a := range runs {
			if a.Method != "pipedream" {
				continue
			}
			deltas := map[int32]int{}
			for _, b := range runs {
				if b.Method == results.MethodRPD && b.Delta != nil && b.Experiment == a.Experiment && b.CostModel == a.CostModel &&
					b.Replicate == a.Replicate && b.Stages == a.Stages && b.StepSize == a.StepSize {
					deltas[*b.Delta]++
				}
			}
			if len(deltas) != 2 || deltas[0] != 1 || deltas[3] != 1 {
				t.Errorf("run %s: partners by δ %v, want one at 0 and one at 3", a.RunID, deltas)
			}
			pairs += deltas[0] + deltas[3]
		}
		if pairs != 8 {
			t.Errorf("%d pairs, want 8", pairs)
		}
	})

	schedules := readPQ[qSchedule](t, dir, results.SchedulesFile)
	t.Run("schedules", func(t *testing.T) {
		// WHERE cost_model = 'unit' AND ranks = 4 AND microbatches = 8:
		// GPipe and 1F1B take 2(M + P − 1) = 22 steps with bubble ratio
		// (P − 1)/(M + P − 1) = 3/11 (docs/reference.md §1.2) at the
		// formula and simulated levels (the lockstep table spends columns
		// on transfers), and so share a family rank; the GPU rows name their
		// presets in columns, the unit rows hold nulls there.
		gpu := 0
		for _, m := range schedules {
			if m.CostModel == results.CostGPU {
				gpu++
				if m.Model == nil || *m.Model != "gpt-1.3b" || m.GPU == nil || *m.GPU != "a100" || m.Link == nil || *m.Link != "nvlink" {
					t.Errorf("%s: model %v gpu %v link %v, want gpt-1.3b, a100, nvlink", m.ScheduleID, m.Model, m.GPU, m.Link)
				}
				continue
			}
			if m.Model != nil || m.GPU != nil || m.Link != nil {
				t.Errorf("%s: unit cost model with presets %v %v %v, want nulls", m.ScheduleID, m.Model, m.GPU, m.Link)
			}
			if m.Ranks != 4 || m.Microbatches != 8 || (m.Family != "gpipe" && m.Family != "1f1b") || m.Level == results.LevelLockstep {
				continue
			}
			if m.Makespan != 22 || m.BubbleRatio != 3.0/11 {
				t.Errorf("%s: makespan %g bubble %g, want 22 and 3/11", m.ScheduleID, m.Makespan, m.BubbleRatio)
			}
		}
		if gpu == 0 {
			t.Error("no GPU-timed schedules")
		}
		// peak_activations is in M_B, microbatches of a rank's share: at
		// P = 4, M = 8 GPipe holds M = 8, 1F1B P = 4, and interleaved 1F1B
		// with V = 2 (2(P − 1) + (V − 1)P + 1)/V = 5.5, where the count of
		// chunk activations would be 11 (pipelab compare's test, the same
		// closed form).
		peaks := map[string]float64{"gpipe": 8, "1f1b": 4, "interleaved-1f1b": 5.5}
		seen := 0
		for _, m := range schedules {
			if want, ok := peaks[m.Family]; ok && m.CostModel == results.CostUnit && m.Level == results.LevelSimulated {
				seen++
				if m.PeakActivations != want {
					t.Errorf("%s: peak_activations %g, want %g M_B", m.ScheduleID, m.PeakActivations, want)
				}
			}
		}
		if seen != 3 {
			t.Errorf("%d unit simulated rows of gpipe, 1f1b and interleaved-1f1b, want 3", seen)
		}
		rank := map[string]int32{}
		for _, m := range schedules {
			if m.CostModel == results.CostUnit && (m.Family == "gpipe" || m.Family == "1f1b") && m.Level != results.LevelLockstep {
				if r, ok := rank[m.Level]; ok && r != m.KindRank {
					t.Errorf("%s level: gpipe and 1f1b tie at 22 steps but rank %d and %d", m.Level, r, m.KindRank)
				}
				rank[m.Level] = m.KindRank
			}
		}
	})

	t.Run("gantt", func(t *testing.T) {
		// timeline JOIN schedules USING (schedule_id): the last action of
		// every timed schedule ends at its makespan.
		end := map[string]float64{}
		for _, e := range readPQ[qEvent](t, dir, results.TimelineFile) {
			end[e.ScheduleID] = max(end[e.ScheduleID], e.EndTime)
		}
		timed := 0
		for _, m := range schedules {
			if m.Level == results.LevelFormula {
				continue
			}
			timed++
			if e, ok := end[m.ScheduleID]; !ok || e != m.Makespan {
				t.Errorf("%s: last action ends at %g (found %v), want the makespan %g", m.ScheduleID, e, ok, m.Makespan)
			}
		}
		if e := end["unit_p4-m8_1f1b_simulated"]; e != 22 || timed == 0 {
			t.Errorf("unit_p4-m8_1f1b_simulated ends at %g, want 2(M + P − 1) = 22", e)
		}
	})
}
