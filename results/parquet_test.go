package results

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Row types for the independent reader, parquet-go: same fields as the
// package's rows (so a conversion checks names and types), columns found
// by the parquet tags alone.
type (
	pqRun struct {
		RunID             string  `parquet:"run_id"`
		Experiment        string  `parquet:"experiment"`
		Objective         string  `parquet:"objective"`
		Method            string  `parquet:"method"`
		Optimizer         string  `parquet:"optimizer"`
		Stages            int32   `parquet:"stages"`
		TotalMicrobatches int32   `parquet:"total_microbatches"`
		TimeBudget        float64 `parquet:"time_budget,optional"`
		StepSize          float64 `parquet:"step_size"`
		BatchSize         int32   `parquet:"batch_size"`
		N                 int32   `parquet:"n"`
		D                 int32   `parquet:"d"`
		Noise             float64 `parquet:"noise"`
		Delta             int32   `parquet:"delta,optional"`
		DelayModel        string  `parquet:"delay_model,optional"`
		Replicas          int32   `parquet:"replicas,optional"`
		LocalSteps        int32   `parquet:"local_steps,optional"`
		Seed              uint64  `parquet:"seed"`
		Replicate         int32   `parquet:"replicate"`
		CostModel         string  `parquet:"cost_model"`
		Outcome           string  `parquet:"outcome"`
		FinalLoss         float64 `parquet:"final_loss"`
		SimTime           float64 `parquet:"sim_time,optional"`
		BlockUpdates      int64   `parquet:"block_updates"`
		SelectionRule     string  `parquet:"selection_rule"`
		Selected          bool    `parquet:"selected"`
		WallSeconds       float64 `parquet:"wall_seconds"`
		ToolVersion       string  `parquet:"tool_version"`
		// The nullable columns; the round trip leaves them set (a null
		// reads as 0 here), TestNullableColumns checks their nulls.
		TimeToTarget    float64 `parquet:"time_to_target,optional"`
		UpdatesToTarget int64   `parquet:"updates_to_target,optional"`
		LossAtBudget    float64 `parquet:"loss_at_budget,optional"`
		TargetLoss      float64 `parquet:"target_loss,optional"`
		HeldOutLoss     float64 `parquet:"held_out_loss,optional"`
		SelectionBound  string  `parquet:"selection_bound,optional"`
		MethodSettings  string  `parquet:"method_settings,optional"`
	}
	pqCurvePoint struct {
		RunID        string  `parquet:"run_id"`
		Experiment   string  `parquet:"experiment"`
		Time         float64 `parquet:"sim_time,optional"`
		BlockUpdates int64   `parquet:"block_updates"`
		Loss         float64 `parquet:"loss"`
		// ValidationLoss is nullable (a null reads as 0 here).
		ValidationLoss float64 `parquet:"validation_loss,optional"`
	}
	pqDelayStat struct {
		RunID             string  `parquet:"run_id"`
		Experiment        string  `parquet:"experiment"`
		Method            string  `parquet:"method"`
		Kind              string  `parquet:"kind"`
		Stages            int32   `parquet:"stages"`
		TotalMicrobatches int32   `parquet:"total_microbatches"`
		Window            string  `parquet:"delay_window"`
		Stage             *int32  `parquet:"stage,optional"`
		TimeSteps         int64   `parquet:"time_steps"`
		Rows              int64   `parquet:"block_updates"`
		Max               int64   `parquet:"max"`
		Mean              float64 `parquet:"mean"`
		P10               float64 `parquet:"p10"`
	}
	pqDelayRow struct {
		RunID             string `parquet:"run_id"`
		Experiment        string `parquet:"experiment"`
		Stages            int32  `parquet:"stages"`
		TotalMicrobatches int32  `parquet:"total_microbatches"`
		Update            int64  `parquet:"block_update"`
		Stage             int32  `parquet:"stage"`
		Delay             int64  `parquet:"delay"`
	}
	pqTimelineEvent struct {
		RunID      string  `parquet:"run_id"`
		Experiment string  `parquet:"experiment"`
		ScheduleID string  `parquet:"schedule_id"`
		Rank       int32   `parquet:"rank"`
		Index      int32   `parquet:"action_index"`
		Kind       string  `parquet:"action_kind"`
		Stage      int32   `parquet:"stage"`
		Microbatch int32   `parquet:"microbatch"`
		Start      float64 `parquet:"start_time"`
		End        float64 `parquet:"end_time"`
	}
	pqScheduleMetric struct {
		RunID           string  `parquet:"run_id"`
		Experiment      string  `parquet:"experiment"`
		ScheduleID      string  `parquet:"schedule_id"`
		Family          string  `parquet:"kind"`
		Ranks           int32   `parquet:"ranks"`
		Microbatches    int32   `parquet:"microbatches"`
		Chunks          int32   `parquet:"chunks"`
		CostModel       string  `parquet:"cost_model"`
		Model           string  `parquet:"model,optional"`
		GPU             string  `parquet:"gpu,optional"`
		Link            string  `parquet:"link,optional"`
		Level           string  `parquet:"level"`
		Makespan        float64 `parquet:"makespan"`
		BubbleRatio     float64 `parquet:"bubble_ratio"`
		PeakActivations float64 `parquet:"peak_activations"`
		PeakMemoryBytes int64   `parquet:"peak_memory_bytes"`
		KindRank        int32   `parquet:"kind_rank"`
	}
)

// roundTrip is one kind of result under test.
type roundTrip struct {
	name   string
	schema *arrow.Schema
	// write writes the kind's test rows, in the order given, to path.
	write func(path string, reverse bool) error
	// want is the test rows, formatted, in input order.
	want []string
	// own and independent read path back, formatted, in file order.
	own, independent func(path string) ([]string, error)
	// sorted reports whether rows read back are in the documented key
	// order, judged by a comparison written here from docs/results.md.
	sorted func(path string) (bool, error)
}

func formatRows[R any](rows []R) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		// %+v prints floats in their shortest exact form and NaN as NaN,
		// so equal strings mean equal values.
		out[i] = fmt.Sprintf("%+v", r)
	}
	return out
}

func kindCase[R, P any](name string, schema *arrow.Schema, rows []R,
	write func(string, []R) error, read func(string) ([]R, error),
	conv func(P) R, key func(a, b R) int) roundTrip {
	return roundTrip{
		name:   name,
		schema: schema,
		write: func(path string, reverse bool) error {
			in := slices.Clone(rows)
			if reverse {
				slices.Reverse(in)
			}
			return write(path, in)
		},
		want: formatRows(rows),
		own: func(path string) ([]string, error) {
			got, err := read(path)
			return formatRows(got), err
		},
		independent: func(path string) ([]string, error) {
			got, err := parquet.ReadFile[P](path)
			conv := func(p P) R { return conv(p) }
			out := make([]R, len(got))
			for i, p := range got {
				out[i] = conv(p)
			}
			return formatRows(out), err
		},
		sorted: func(path string) (bool, error) {
			got, err := read(path)
			return slices.IsSortedFunc(got, key), err
		},
	}
}

func kindCases() []roundTrip {
	return []roundTrip{
		kindCase("runs", RunSchema(), genRuns(300), WriteRuns, ReadRuns,
			func(p pqRun) Run {
				// A null sim_time reads as 0 here; TestOptionalColumns checks it is null.
				r := Run(p)
				if r.Method == MethodRPD {
					r.SimTime = math.NaN()
				}
				return r
			},
			func(a, b Run) int { return cmp.Compare(a.RunID, b.RunID) }),
		kindCase("curves", CurveSchema(), genCurves(7, 120), WriteCurves, ReadCurves,
			func(p pqCurvePoint) CurvePoint { return CurvePoint(p) },
			func(a, b CurvePoint) int {
				return cmp.Or(cmp.Compare(a.RunID, b.RunID), cmp.Compare(a.Time, b.Time), cmp.Compare(a.BlockUpdates, b.BlockUpdates))
			}),
		kindCase("delays", DelaySchema(), genDelays(), WriteDelays, ReadDelays,
			func(p pqDelayStat) DelayStat {
				// A null stage is a row over every stage.
				stage := int32(AllStages)
				if p.Stage != nil {
					stage = *p.Stage
				}
				return DelayStat{RunID: p.RunID, Experiment: p.Experiment, Method: p.Method, Kind: p.Kind, Stages: p.Stages,
					TotalMicrobatches: p.TotalMicrobatches, Window: p.Window, Stage: stage, TimeSteps: p.TimeSteps, Rows: p.Rows,
					Max: p.Max, Mean: p.Mean, P10: p.P10}
			},
			func(a, b DelayStat) int {
				return cmp.Or(cmp.Compare(a.Method, b.Method), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Stages, b.Stages),
					cmp.Compare(a.TotalMicrobatches, b.TotalMicrobatches), cmp.Compare(a.Window, b.Window), cmp.Compare(a.Stage, b.Stage))
			}),
		kindCase("delay rows", DelayRowSchema(), genDelayRows(), WriteDelayRows, ReadDelayRows,
			func(p pqDelayRow) DelayRow { return DelayRow(p) },
			func(a, b DelayRow) int {
				return cmp.Or(cmp.Compare(a.Stages, b.Stages), cmp.Compare(a.TotalMicrobatches, b.TotalMicrobatches),
					cmp.Compare(a.Update, b.Update), cmp.Compare(a.Stage, b.Stage))
			}),
		kindCase("timeline", TimelineSchema(), genTimeline(), WriteTimeline, ReadTimeline,
			func(p pqTimelineEvent) TimelineEvent { return TimelineEvent(p) },
			func(a, b TimelineEvent) int {
				return cmp.Or(cmp.Compare(a.ScheduleID, b.ScheduleID), cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Index, b.Index))
			}),
		kindCase("schedules", ScheduleSchema(), genSchedules(), WriteSchedules, ReadSchedules,
			func(p pqScheduleMetric) ScheduleMetric { return ScheduleMetric(p) },
			func(a, b ScheduleMetric) int {
				return cmp.Or(cmp.Compare(a.ScheduleID, b.ScheduleID), cmp.Compare(a.Family, b.Family),
					cmp.Compare(a.Ranks, b.Ranks), cmp.Compare(a.Microbatches, b.Microbatches), cmp.Compare(a.Chunks, b.Chunks),
					cmp.Compare(a.CostModel, b.CostModel), cmp.Compare(a.Level, b.Level))
			}),
	}
}

// sameMultiset reports whether got and want hold the same rows, in any order.
func sameMultiset(got, want []string) bool {
	got, want = slices.Clone(got), slices.Clone(want)
	slices.Sort(got)
	slices.Sort(want)
	return slices.Equal(got, want)
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range kindCases() {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.parquet")
			if err := tc.write(path, false); err != nil {
				t.Fatal(err)
			}
			own, err := tc.own(path)
			if err != nil {
				t.Fatalf("own reader: %v", err)
			}
			indep, err := tc.independent(path)
			if err != nil {
				t.Fatalf("parquet-go: %v", err)
			}
			if !sameMultiset(own, tc.want) {
				t.Errorf("own reader: rows differ from the rows written")
			}
			if !slices.Equal(indep, own) {
				t.Errorf("parquet-go reads different rows or order than the own reader:\n%v\n%v", head(indep), head(own))
			}
			if ok, err := tc.sorted(path); err != nil || !ok {
				t.Errorf("rows not in key order (err %v)", err)
			}
		})
	}
}

func head(rows []string) []string { return rows[:min(3, len(rows))] }

// TestParquetSchema checks the file's physical schema with parquet-go:
// each column required (optional for the nullable ones), of the physical type the Parquet format maps the
// Arrow type to, and every column chunk zstd-compressed.
func TestParquetSchema(t *testing.T) {
	physical := map[arrow.Type]parquet.Kind{
		arrow.INT32:   parquet.Int32,
		arrow.INT64:   parquet.Int64,
		arrow.UINT64:  parquet.Int64,
		arrow.FLOAT64: parquet.Double,
		arrow.STRING:  parquet.ByteArray,
		arrow.BOOL:    parquet.Boolean,
	}
	for _, tc := range kindCases() {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.parquet")
			if err := tc.write(path, false); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			fields := f.Schema().Fields()
			if len(fields) != tc.schema.NumFields() {
				t.Fatalf("%d columns, want %d", len(fields), tc.schema.NumFields())
			}
			for i, field := range fields {
				want := tc.schema.Field(i)
				if field.Name() != want.Name || field.Type().Kind() != physical[want.Type.ID()] || field.Required() == want.Nullable {
					t.Errorf("column %d: %s %v required=%v, want %s %v required=%v", i, field.Name(), field.Type().Kind(), field.Required(), want.Name, physical[want.Type.ID()], !want.Nullable)
				}
			}
			for _, rg := range f.Metadata().RowGroups {
				for _, c := range rg.Columns {
					if c.MetaData.Codec != format.Zstd {
						t.Errorf("column %v: codec %v, want ZSTD", c.MetaData.PathInSchema, c.MetaData.Codec)
					}
				}
			}
		})
	}
}

// TestDeterministic writes the same rows twice, in opposite orders, and
// expects byte-identical files: no timestamps or random ids in metadata,
// and the order of the rows is the writer's, not the caller's.
func TestDeterministic(t *testing.T) {
	for _, tc := range kindCases() {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
			if err := tc.write(a, false); err != nil {
				t.Fatal(err)
			}
			if err := tc.write(b, true); err != nil {
				t.Fatal(err)
			}
			da, _ := os.ReadFile(a)
			db, _ := os.ReadFile(b)
			if len(da) == 0 || !bytes.Equal(da, db) {
				t.Errorf("files differ: %d and %d bytes", len(da), len(db))
			}
		})
	}
}

func TestEmptyTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), RunsFile)
	if err := WriteRuns(path, nil); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRuns(path)
	if err != nil || len(got) != 0 {
		t.Fatalf("ReadRuns = %d rows, %v; want 0 rows", len(got), err)
	}
	indep, err := parquet.ReadFile[pqRun](path)
	if err != nil || len(indep) != 0 {
		t.Fatalf("parquet-go: %d rows, %v; want 0 rows", len(indep), err)
	}
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	// A regular file where a directory should be: not writable even by root.
	notDir := filepath.Join(dir, "plain")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		rows []Run
		want string
	}{
		{"parent is a file", filepath.Join(notDir, RunsFile), genRuns(3), filepath.Join(notDir, RunsFile)},
		{"missing directory", filepath.Join(dir, "missing", RunsFile), genRuns(3), filepath.Join(dir, "missing", RunsFile)},
		{"duplicate run id", filepath.Join(dir, RunsFile), []Run{{RunID: "a"}, {RunID: "a"}}, `duplicate run id "a"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := WriteRuns(tc.path, tc.rows)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("WriteRuns(%s) = %v, want an error naming %q", tc.path, err, tc.want)
			}
			if _, err := os.Stat(tc.path); err == nil {
				t.Errorf("%s exists after a failed write", tc.path)
			}
		})
	}
	assertOnly(t, dir, "plain")
}

// TestAtomicFailure fails a write half way and expects the previous file
// untouched and no temporary file left.
func TestAtomicFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, CurvesFile)
	if err := os.WriteFile(path, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := writeAtomic(path, func(f *os.File) error {
		f.WriteString("partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("writeAtomic = %v, want %v", err, boom)
	}
	if data, _ := os.ReadFile(path); string(data) != "previous" {
		t.Errorf("%s = %q after a failed write, want the previous content", path, data)
	}
	assertOnly(t, dir, CurvesFile)
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, names) {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	curves := filepath.Join(dir, CurvesFile)
	if err := WriteCurves(curves, genCurves(1, 3)); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.parquet")
	if err := os.WriteFile(garbage, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       []string
	}{
		{"wrong kind", curves, []string{curves, "not a runs table", "column 2 is sim_time", "want objective"}},
		{"not parquet", garbage, []string{garbage}},
		{"missing", filepath.Join(dir, "none.parquet"), []string{"none.parquet"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadRuns(tc.path)
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("ReadRuns(%s) = %v, want an error naming %q", tc.path, err, w)
				}
			}
		})
	}
}

func TestDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	in := &Tables{Runs: genRuns(4), Curves: genCurves(4, 5), Schedules: genSchedules()}
	if err := WriteDir(dir, in); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, dir, CurvesFile, RunsFile, SchedulesFile)
	got, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !sameMultiset(formatRows(got.Runs), formatRows(in.Runs)) || !sameMultiset(formatRows(got.Curves), formatRows(in.Curves)) ||
		!sameMultiset(formatRows(got.Schedules), formatRows(in.Schedules)) {
		t.Error("ReadDir rows differ from the rows written")
	}
	if got.Delays != nil || got.DelayRows != nil || got.Timeline != nil {
		t.Error("ReadDir filled kinds whose files are absent")
	}
	if _, err := ReadDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no result tables") {
		t.Errorf("ReadDir(empty dir) = %v, want a no-tables error", err)
	}
}

// A value not measured is null in the file, as an independent reader
// (parquet-go, pointer fields) sees it, and reads back as NaN or
// NotReached.
func TestNullableColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), RunsFile)
	rows := []Run{
		{RunID: "a", TimeToTarget: math.NaN(), UpdatesToTarget: NotReached, LossAtBudget: math.NaN()},
		{RunID: "b", TimeToTarget: 12.5, UpdatesToTarget: 40, LossAtBudget: 0.25},
	}
	if err := WriteRuns(path, rows); err != nil {
		t.Fatal(err)
	}
	type nulls struct {
		RunID           string   `parquet:"run_id"`
		TimeToTarget    *float64 `parquet:"time_to_target,optional"`
		UpdatesToTarget *int64   `parquet:"updates_to_target,optional"`
		LossAtBudget    *float64 `parquet:"loss_at_budget,optional"`
	}
	indep, err := parquet.ReadFile[nulls](path)
	if err != nil {
		t.Fatal(err)
	}
	if a := indep[0]; a.TimeToTarget != nil || a.UpdatesToTarget != nil || a.LossAtBudget != nil {
		t.Errorf("run a: %v %v %v, want nulls", a.TimeToTarget, a.UpdatesToTarget, a.LossAtBudget)
	}
	if b := indep[1]; b.TimeToTarget == nil || *b.TimeToTarget != 12.5 || *b.UpdatesToTarget != 40 || *b.LossAtBudget != 0.25 {
		t.Errorf("run b: %+v", b)
	}
	back, err := ReadRuns(path)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(back[0].TimeToTarget) || back[0].UpdatesToTarget != NotReached || !math.IsNaN(back[0].LossAtBudget) || back[1].UpdatesToTarget != 40 {
		t.Errorf("read back %+v and %+v", back[0], back[1])
	}
}

// A setting that does not apply to a run's method is null in the file, as
// parquet-go (pointer fields) sees it, while RPD's δ = 0 is a value; RPD
// has no simulated time. Each reads back as 0 (NaN for sim_time).
func TestOptionalColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), RunsFile)
	rows := []Run{
		{RunID: "pd", Method: "pipedream", TimeBudget: 0, SimTime: 12},
		{RunID: "rpd", Method: MethodRPD, TimeBudget: 100, Delta: 0, SimTime: math.NaN()},
		{RunID: "lsgd", Method: MethodLocalSGD, Replicas: 4, LocalSteps: 8, SimTime: 3},
	}
	if err := WriteRuns(path, rows); err != nil {
		t.Fatal(err)
	}
	type opt struct {
		RunID      string   `parquet:"run_id"`
		TimeBudget *float64 `parquet:"time_budget,optional"`
		Delta      *int32   `parquet:"delta,optional"`
		Replicas   *int32   `parquet:"replicas,optional"`
		LocalSteps *int32   `parquet:"local_steps,optional"`
		SimTime    *float64 `parquet:"sim_time,optional"`
	}
	indep, err := parquet.ReadFile[opt](path)
	if err != nil {
		t.Fatal(err)
	}
	// Sorted by run id: lsgd, pd, rpd.
	lsgd, pd, rpd := indep[0], indep[1], indep[2]
	if pd.TimeBudget != nil || pd.Delta != nil || pd.Replicas != nil || pd.LocalSteps != nil || pd.SimTime == nil || *pd.SimTime != 12 {
		t.Errorf("pipedream: %+v, want null budget, delta, replicas, local_steps and sim_time 12", pd)
	}
	if rpd.Delta == nil || *rpd.Delta != 0 || rpd.SimTime != nil || rpd.TimeBudget == nil || *rpd.TimeBudget != 100 {
		t.Errorf("rpd: %+v, want delta 0 (not null), null sim_time, budget 100", rpd)
	}
	if lsgd.Delta != nil || lsgd.Replicas == nil || *lsgd.Replicas != 4 || *lsgd.LocalSteps != 8 {
		t.Errorf("localsgd: %+v, want null delta, replicas 4, local_steps 8", lsgd)
	}
	back, err := ReadRuns(path)
	if err != nil {
		t.Fatal(err)
	}
	if back[1].TimeBudget != 0 || back[1].Delta != 0 || !math.IsNaN(back[2].SimTime) || back[0].Replicas != 4 {
		t.Errorf("read back %+v", back)
	}
}
