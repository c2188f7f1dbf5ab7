package results

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var plotDir = flag.String("plotdir", "", "also write the test figures to this directory, to look at them")

// figure is one plot under test, drawn to the path it is given.
type figure struct {
	name string
	draw func(path string) error
}

func figures() []figure {
	runs, curves := lossRuns()
	return []figure{
		{"loss_vs_time", func(p string) error { return PlotLossVsTime(p, runs, curves) }},
		{"loss_vs_updates", func(p string) error { return PlotLossVsUpdates(p, runs, curves) }},
		{"final_vs_stages", func(p string) error { return PlotFinalVsStages(p, scalingRuns()) }},
		{"delays", func(p string) error { return PlotDelays(p, delayStats()) }},
		{"gantt", func(p string) error { return PlotGantt(p, pipedreamEvents(), nil, "") }},
		{"gantt_titled", func(p string) error {
			row := ScheduleMetric{ScheduleID: "pipedream/p4m12", Family: "pipedream", Ranks: 4, Microbatches: 12, CostModel: CostUnit, Level: LevelLockstep}
			return PlotGantt(p, pipedreamEvents(), []ScheduleMetric{row}, "pipedream/p4m12")
		}},
		{"gantt_comms", func(p string) error { return PlotGantt(p, genTimeline(), nil, "1f1b/p4m8") }},
		{"delays_two_windows", func(p string) error {
			all := delayStats()
			for i := range all {
				// Drain included, the maximum only grows (docs/reference.md §1.3: 72 > 60 at S = 8).
				all[i].Window, all[i].Max = WindowAll, all[i].Max+all[i].Max/5
			}
			return PlotDelays(p, append(delayStats(), all...))
		}},
		{"schedules", func(p string) error { return PlotScheduleComparison(p, scheduleMetrics()) }},
	}
}

func TestPlots(t *testing.T) {
	for _, fig := range figures() {
		for _, ext := range []string{".png", ".svg"} {
			t.Run(fig.name+ext, func(t *testing.T) {
				dir := t.TempDir()
				if *plotDir != "" {
					dir = *plotDir
				}
				path := filepath.Join(dir, fig.name+ext)
				if err := fig.draw(path); err != nil {
					t.Fatal(err)
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				switch ext {
				case ".png":
					img, err := png.Decode(bytes.NewReader(data))
					if err != nil {
						t.Fatalf("not a PNG: %v", err)
					}
					if b := img.Bounds(); b.Dx() < 300 || b.Dy() < 200 {
						t.Errorf("PNG is %v, too small to read", b)
					}
				case ".svg":
					if err := checkSVG(data); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	}
}

// checkSVG parses data as XML and expects an svg root element.
func checkSVG(data []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	root := ""
	for {
		tok, err := dec.Token()
		if err != nil {
			if root == "" {
				return errors.New("no root element: " + err.Error())
			}
			if err.Error() == "EOF" {
				return nil
			}
			return err
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
			if root != "svg" {
				return errors.New("root element " + root + ", want svg")
			}
		}
	}
}

func TestPlotErrors(t *testing.T) {
	runs, curves := lossRuns()
	negative := slices.Clone(curves)
	negative[5].Loss = -1
	zeroFinal := scalingRuns()
	zeroFinal[3].FinalLoss = 0
	oneStage := append(delayStats(), DelayStat{Stages: 1, TotalMicrobatches: 10, Window: WindowSteady})
	mixed := slices.Clone(runs)
	mixed[0].CostModel = CostGPU
	missingLevel := append(scheduleMetrics(), ScheduleMetric{ScheduleID: "gpipe/p4m8", Family: "gpipe", Ranks: 4,
		Microbatches: 8, CostModel: CostUnit, Level: LevelSimulated, Makespan: 1})
	otherShape := append(scheduleMetrics(), ScheduleMetric{ScheduleID: "gpipe/p8m8", Family: "gpipe", Ranks: 8,
		Microbatches: 8, CostModel: CostUnit, Level: LevelFormula, Makespan: 1})
	twoSchedules := append(pipedreamEvents(), TimelineEvent{ScheduleID: "other", End: 1})
	allDiverged := scalingRuns()
	for i := range allDiverged {
		allDiverged[i].Outcome, allDiverged[i].FinalLoss = OutcomeDiverged, math.NaN()
	}

	tests := []struct {
		name string
		draw func(path string) error
		is   error    // sentinel the error wraps, if any
		want []string // substrings of the message
	}{
		{"no runs", func(p string) error { return PlotLossVsTime(p, nil, curves) }, ErrNoData, []string{"no runs"}},
		{"no curve points", func(p string) error { return PlotLossVsUpdates(p, runs, nil) }, ErrNoData, []string{"no finite curve points"}},
		{"negative loss", func(p string) error { return PlotLossVsTime(p, runs, negative) }, ErrLogAxis, []string{`run "fig1-0"`, "loss -1"}},
		{"mixed cost models", func(p string) error { return PlotLossVsTime(p, mixed, curves) }, nil, []string{"mix cost models"}},
		{"zero final loss", func(p string) error { return PlotFinalVsStages(p, zeroFinal) }, ErrLogAxis, []string{zeroFinal[3].RunID, "final loss 0"}},
		{"all diverged", func(p string) error { return PlotFinalVsStages(p, allDiverged) }, ErrNoData, []string{"did not diverge"}},
		{"no delays", func(p string) error { return PlotDelays(p, nil) }, ErrNoData, nil},
		{"zero delay", func(p string) error { return PlotDelays(p, oneStage) }, ErrLogAxis, []string{"S = 1"}},
		{"duplicate delay", func(p string) error { return PlotDelays(p, append(delayStats(), delayStats()[0])) }, nil, []string{"appears twice"}},
		{"corrupt rank", func(p string) error {
			return PlotGantt(p, []TimelineEvent{{Rank: 1 << 30, End: 1}}, nil, "")
		}, nil, []string{"rank 1073741824"}},
		{"no events", func(p string) error { return PlotGantt(p, nil, nil, "") }, ErrNoData, nil},
		{"unknown schedule", func(p string) error { return PlotGantt(p, pipedreamEvents(), nil, "zb-v") }, ErrNoData, []string{`"zb-v"`}},
		{"two schedules", func(p string) error { return PlotGantt(p, twoSchedules, nil, "") }, nil, []string{"2 schedules"}},
		{"no metrics", func(p string) error { return PlotScheduleComparison(p, nil) }, ErrNoData, nil},
		{"missing level", func(p string) error { return PlotScheduleComparison(p, missingLevel) }, nil, []string{`"1f1b" has no row at level "simulated"`}},
		{"two shapes", func(p string) error { return PlotScheduleComparison(p, otherShape) }, nil, []string{"differ in shape"}},
		{"bad format", func(p string) error { return PlotDelays(strings.TrimSuffix(p, ".png")+".gif", delayStats()) }, nil, []string{`".gif"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "fig.png")
			err := tc.draw(path)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
			for _, w := range append(tc.want, "fig.") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			assertOnly(t, dir)
		})
	}
}

func TestRankKinds(t *testing.T) {
	// Makespans 30, 20, 20, 10 in one group rank 4, 2, 2, 1 (competition
	// ranking); the lone row of another level ranks 1.
	m := []ScheduleMetric{
		{Family: "a", Ranks: 4, Microbatches: 8, Level: LevelFormula, Makespan: 30},
		{Family: "b", Ranks: 4, Microbatches: 8, Level: LevelFormula, Makespan: 20},
		{Family: "c", Ranks: 4, Microbatches: 8, Level: LevelFormula, Makespan: 20},
		{Family: "d", Ranks: 4, Microbatches: 8, Level: LevelFormula, Makespan: 10},
		{Family: "a", Ranks: 4, Microbatches: 8, Level: LevelSimulated, Makespan: 99},
	}
	RankKinds(m)
	var got []int32
	for _, r := range m {
		got = append(got, r.KindRank)
	}
	if want := []int32{4, 2, 2, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("ranks %v, want %v", got, want)
	}
}

// TestGanttKeyAndAxis checks what a reader needs from the one Gantt
// renderer: the key of the box labels, and a time axis that ends at the
// makespan (the last tick label is the makespan of the timeline, 0..8 for
// this 1F1B-like grid, and nothing past it).
func TestGanttKeyAndAxis(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.svg")
	g := Gantt{Title: "test: 2 ranks", Unit: "steps", Events: []TimelineEvent{
		{Rank: 0, Index: 0, Kind: "F", Microbatch: 0, Start: 0, End: 1},
		{Rank: 1, Index: 0, Kind: "F", Stage: 1, Microbatch: 0, Start: 1, End: 2},
		{Rank: 1, Index: 1, Kind: "B", Stage: 1, Microbatch: 0, Start: 2, End: 4},
		{Rank: 0, Index: 1, Kind: "B", Microbatch: 0, Start: 4, End: 8},
	}}
	if err := g.Plot(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for _, want := range []string{"box label: microbatch", "time (steps)", "test: 2 ranks"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if strings.Contains(svg, ">10<") || strings.Contains(svg, ">9<") {
		t.Error("the time axis runs past the makespan 8")
	}
	if strings.Contains(svg, "communication") {
		t.Error("the legend names communication, which this timeline has none of")
	}
	bad := g
	bad.Events = append([]TimelineEvent{{Rank: 0, Kind: "F", Start: -1, End: 0}}, g.Events...)
	if err := bad.Plot(path); err == nil {
		t.Error("an event starting before 0 was drawn")
	}
}
