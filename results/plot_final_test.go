package results

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// seededScaling is a hand-made table of final losses over three seeds at
// S = 2 and 4: PipeDream and RPD (δ = ⌊S² - S/2⌋, so one δ per S) with
// the selected step, plus unselected steps and a diverged run that must not
// count, and LocalSGD at H = 2 and H = 8, which must be two lines.
// finalLosses[line][S] holds the three seeds' losses of the selected step.
var finalLosses = map[string]map[int32][]float64{
	"pipedream":       {2: {0.20, 0.23, 0.29}, 4: {0.21, 0.21, 0.24}},
	"rpd":             {2: {0.36, 0.30, 0.33}, 4: {0.25, 0.31, 0.28}},
	"localsgd, H = 2": {2: {0.12, 0.10, 0.17}, 4: {0.2, 0.2, 0.2}},
	"localsgd, H = 8": {2: {0.48, 0.40, 0.44}, 4: {0.7, 0.5, 0.6}},
}

func seededScaling() []Run {
	var runs []Run
	add := func(method string, h int32, s int32, step float64, selected bool, seed uint64, loss float64) {
		r := Run{RunID: fmt.Sprintf("%s-H%d-S%d-g%g-%d", method, h, s, step, seed), Objective: "logistic", Method: method,
			Stages: s, LocalSteps: h, StepSize: step, Seed: seed, TimeBudget: 3180, CostModel: CostUnit,
			Outcome: OutcomeOK, FinalLoss: loss, Selected: selected, SelectionRule: "best-final"}
		if method == "rpd" {
			r.Delta = s*s - s/2
		}
		if method == "localsgd" {
			r.Replicas = s
		}
		if math.IsNaN(loss) {
			r.Outcome = OutcomeDiverged
		}
		runs = append(runs, r)
	}
	for _, m := range []struct {
		line, method string
		h            int32
		step         float64
	}{{"pipedream", "pipedream", 0, 0.0078125}, {"rpd", "rpd", 0, 0.0078125},
		{"localsgd, H = 2", "localsgd", 2, 0.03125}, {"localsgd, H = 8", "localsgd", 8, 0.0625}} {
		for _, s := range []int32{2, 4} {
			for seed, loss := range finalLosses[m.line][s] {
				add(m.method, m.h, s, m.step, true, uint64(seed), loss)
				// A worse step (not selected) and a diverged one.
				add(m.method, m.h, s, 2*m.step, false, uint64(seed), loss+0.5)
				add(m.method, m.h, s, 16*m.step, false, uint64(seed), math.NaN())
			}
		}
	}
	return runs
}

// handSeries is what finalVsStages must return for seededScaling, worked
// out by hand from finalLosses: mean = sum/3, min, max.
var handSeries = []stageSeries{
	{Label: "localsgd, H = 2", Points: []stagePoint{
		{Stages: 2, Seeds: 3, Mean: 0.13, Min: 0.10, Max: 0.17}, // (0.12 + 0.10 + 0.17)/3 = 0.39/3
		{Stages: 4, Seeds: 3, Mean: 0.2, Min: 0.2, Max: 0.2},
	}},
	{Label: "localsgd, H = 8", Points: []stagePoint{
		{Stages: 2, Seeds: 3, Mean: 0.44, Min: 0.40, Max: 0.48}, // 1.32/3
		{Stages: 4, Seeds: 3, Mean: 0.6, Min: 0.5, Max: 0.7},    // 1.8/3
	}},
	{Label: "pipedream", Points: []stagePoint{
		{Stages: 2, Seeds: 3, Mean: 0.24, Min: 0.20, Max: 0.29}, // 0.72/3
		{Stages: 4, Seeds: 3, Mean: 0.22, Min: 0.21, Max: 0.24}, // 0.66/3
	}},
	{Label: "rpd", Points: []stagePoint{
		{Stages: 2, Seeds: 3, Mean: 0.33, Min: 0.30, Max: 0.36}, // 0.99/3
		{Stages: 4, Seeds: 3, Mean: 0.28, Min: 0.25, Max: 0.31}, // 0.84/3
	}},
}

const tol = 1e-12

func near(a, b float64) bool { return math.Abs(a-b) <= tol }

func checkSeries(t *testing.T, got, want []stageSeries) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d lines %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Label != w.Label || len(g.Points) != len(w.Points) {
			t.Errorf("line %d: %q with %d points, want %q with %d", i, g.Label, len(g.Points), w.Label, len(w.Points))
			continue
		}
		for j, wp := range w.Points {
			gp := g.Points[j]
			if gp.Stages != wp.Stages || gp.Seeds != wp.Seeds || !near(gp.Mean, wp.Mean) || !near(gp.Min, wp.Min) || !near(gp.Max, wp.Max) {
				t.Errorf("%s S=%d: %+v, want %+v", w.Label, wp.Stages, gp, wp)
			}
		}
	}
}

func TestFinalVsStagesThreeSeeds(t *testing.T) {
	series, err := finalVsStages(seededScaling())
	if err != nil {
		t.Fatal(err)
	}
	checkSeries(t, series, handSeries)

	layers, seeds := finalLayers(series)
	if seeds != "3" {
		t.Errorf("seed count %q, want \"3\"", seeds)
	}
	for i, l := range layers {
		w := handSeries[i]
		// Four lines sit at -1.5, -0.5, 0.5, 1.5 times barShift octaves
		// around each S.
		shift := math.Exp2(barShift * (float64(i) - 1.5))
		if len(l.Points) != 2 || len(l.Bars) != 2 || len(l.Errors) != 2 {
			t.Fatalf("%s: %d points, %d bars, %d errors; want 2 each", l.Label, len(l.Points), len(l.Bars), len(l.Errors))
		}
		for j, wp := range w.Points {
			x := float64(wp.Stages) * shift
			if p := l.Points[j]; !near(p.X, x) || !near(p.Y, wp.Mean) {
				t.Errorf("%s point %d at (%g, %g), want (%g, %g)", l.Label, j, p.X, p.Y, x, wp.Mean)
			}
			// The bar runs from the lowest seed to the highest.
			b, e := l.Bars[j], l.Errors[j]
			if !near(b.X, x) || !near(b.Y-e.Low, wp.Min) || !near(b.Y+e.High, wp.Max) {
				t.Errorf("%s bar %d at x = %g from %g to %g, want x = %g from %g to %g",
					l.Label, j, b.X, b.Y-e.Low, b.Y+e.High, x, wp.Min, wp.Max)
			}
		}
	}
}

func TestFinalVsStagesOneSeed(t *testing.T) {
	var one []Run
	for _, r := range seededScaling() {
		if r.Seed == 0 {
			one = append(one, r)
		}
	}
	series, err := finalVsStages(one)
	if err != nil {
		t.Fatal(err)
	}
	// Each point is seed 0's loss, the first of each list in finalLosses.
	var want []stageSeries
	for _, w := range handSeries {
		s := stageSeries{Label: w.Label}
		for _, p := range w.Points {
			l := finalLosses[w.Label][p.Stages][0]
			s.Points = append(s.Points, stagePoint{Stages: p.Stages, Seeds: 1, Mean: l, Min: l, Max: l})
		}
		want = append(want, s)
	}
	checkSeries(t, series, want)
	layers, seeds := finalLayers(series)
	if seeds != "" {
		t.Errorf("seed count %q, want none (no bars)", seeds)
	}
	for i, l := range layers {
		if len(l.Bars) != 0 || len(l.Errors) != 0 {
			t.Errorf("%s: %d bars with one seed", l.Label, len(l.Bars))
		}
		for j, p := range l.Points {
			if w := want[i].Points[j]; p.X != float64(w.Stages) || !near(p.Y, w.Mean) {
				t.Errorf("%s point %d at (%g, %g), want (%d, %g) unshifted", l.Label, j, p.X, p.Y, w.Stages, w.Mean)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "one.svg")
	if err := PlotFinalVsStages(path, one); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); !bytes.Contains(data, []byte("final loss f(x), one seed")) {
		t.Error("the y label does not say the points are one seed's")
	}
}

// Without any selected run, a point would mix step sizes; each step size
// becomes its own line instead, and one diverged seed leaves two. Lines
// sort by step size, so 2^-2 comes before 2^-1.
func TestFinalVsStagesNoSelection(t *testing.T) {
	var runs []Run
	for _, s := range []int32{2, 4} {
		for _, step := range []float64{0.25, 0.5} {
			for seed := range uint64(3) {
				loss := float64(s) * step * float64(1+seed) // 1, 2, 3 times S·γ
				r := Run{RunID: fmt.Sprintf("S%d-g%g-%d", s, step, seed), Objective: "logistic", Method: "pipedream",
					Stages: s, StepSize: step, Seed: seed, Outcome: OutcomeOK, FinalLoss: loss}
				if s == 4 && step == 0.5 && seed == 2 {
					r.Outcome, r.FinalLoss = OutcomeDiverged, math.Inf(1)
				}
				runs = append(runs, r)
			}
		}
	}
	series, err := finalVsStages(runs)
	if err != nil {
		t.Fatal(err)
	}
	checkSeries(t, series, []stageSeries{
		{Label: "pipedream, γ = 2^-2", Points: []stagePoint{{Stages: 2, Seeds: 3, Mean: 1, Min: 0.5, Max: 1.5}, {Stages: 4, Seeds: 3, Mean: 2, Min: 1, Max: 3}}}, // S·γ·(1+2+3)/3 = 2·S·γ
		{Label: "pipedream, γ = 2^-1", Points: []stagePoint{{Stages: 2, Seeds: 3, Mean: 2, Min: 1, Max: 3}, {Stages: 4, Seeds: 2, Mean: 3, Min: 2, Max: 4}}},     // S = 4: (2 + 4)/2
	})
	if _, seeds := finalLayers(series); seeds != "2–3" {
		t.Errorf("seed count %q, want \"2–3\"", seeds)
	}
}

// The figure depends on the rows, not on their order, and is the same file
// each time it is drawn.
func TestFinalVsStagesDeterministic(t *testing.T) {
	runs := seededScaling()
	shuffled := slices.Clone(runs)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	dir := t.TempDir()
	for _, ext := range []string{".png", ".svg"} {
		var files [][]byte
		for i, rows := range [][]Run{runs, runs, shuffled} {
			path := filepath.Join(dir, fmt.Sprintf("f%d%s", i, ext))
			if err := PlotFinalVsStages(path, rows); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, data)
		}
		if !bytes.Equal(files[0], files[1]) || !bytes.Equal(files[0], files[2]) {
			t.Errorf("%s: drawing the same rows twice, or shuffled, gives different files", ext)
		}
		if ext == ".svg" && !bytes.Contains(files[0], []byte("mean of 3 seeds, bar min–max")) {
			t.Error("the y label does not say what the points and bars are")
		}
	}
}
