package results

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// Data generated exactly as y = a·x^b give back a and b, with a 95 %
// interval of zero width (no residual).
func TestFitPowerLawExact(t *testing.T) {
	for _, c := range []struct{ a, b float64 }{{0.003, 4}, {2.5, -1}, {1e-6, 2.7}} {
		var xs, ys []float64
		for _, x := range []float64{2, 4, 8, 16, 32} {
			xs, ys = append(xs, x), append(ys, c.a*math.Pow(x, c.b))
		}
		f := FitPowerLaw(xs, ys)
		if math.Abs(f.B-c.b) > 1e-9 || math.Abs(f.A/c.a-1) > 1e-9 || math.Abs(f.High-f.Low) > 1e-9 || f.Points != 5 {
			t.Errorf("a = %g, b = %g: fit %+v", c.a, c.b, f)
		}
	}
}

// Two points per x at log-deviations +e and −e keep the slope b exactly;
// the residuals are all ±e, so by hand SSE = 6e², Sxx = 2·Σ(ln x − mean)²
// = 2·2·(ln 2)² for x = 2, 4, 8, se = √(SSE/(n − 2)/Sxx), and t(0.975, 4)
// = 2.7764 (any Student's t table).
func TestFitPowerLawInterval(t *testing.T) {
	const a, b, e = 0.5, 4.0, 0.1
	var xs, ys []float64
	for _, x := range []float64{2, 4, 8} {
		for _, s := range []float64{1, -1} {
			xs, ys = append(xs, x), append(ys, a*math.Pow(x, b)*math.Exp(s*e))
		}
	}
	f := FitPowerLaw(xs, ys)
	se := math.Sqrt(6 * e * e / 4 / (4 * math.Ln2 * math.Ln2))
	if math.Abs(f.B-b) > 1e-12 || math.Abs(f.High-(b+2.7764*se)) > 1e-4 || math.Abs(f.Low-(b-2.7764*se)) > 1e-4 {
		t.Errorf("fit %+v, want b = 4 ± %g", f, 2.7764*se)
	}
	// One x: no slope.
	if g := FitPowerLaw([]float64{4, 4}, []float64{1, 2}); !math.IsNaN(g.B) {
		t.Errorf("one x gave b = %g", g.B)
	}
}

// lawRuns returns the selected runs of a synthetic staleness-law sweep:
// sync's loss 1 at every S and replicate, PipeDream's 1 + a·S^b·(1 ± e)
// (the sign alternating with the replicate), plus an unselected run of
// each at a larger step (the grid's other point) that must be ignored;
// at S = 1 PipeDream's gap is −0.5, which must stay out of the fit.
func lawRuns(a, b, e float64, reps int) []Run {
	var runs []Run
	for _, s := range []int32{1, 2, 4, 8, 16} {
		for rep := range int32(reps) {
			sign := float64(1 - 2*(rep%2))
			gap := a * math.Pow(float64(s), b) * (1 + sign*e)
			if s == 1 {
				gap = -0.5
			}
			for _, m := range []struct {
				method string
				loss   float64
			}{{"sync", 1}, {"pipedream", 1 + gap}} {
				for _, step := range []float64{0.1, 0.2} {
					runs = append(runs, Run{RunID: fmt.Sprintf("%s-%d-%d-%g", m.method, s, rep, step), Experiment: "law",
						Objective: "quadratic", Method: m.method, Optimizer: "sgd", Stages: s, TotalMicrobatches: 100,
						StepSize: step, Replicate: rep, CostModel: CostUnit, Outcome: OutcomeOK,
						FinalLoss: m.loss + 7*step, Selected: step == 0.1})
				}
			}
		}
	}
	return runs
}

// Gaps pairs the selected runs by replicate and Fits recovers the
// generated exponent: with e = 0 exactly, with e > 0 within its
// interval, which then has positive width. Six replicates (MinSeeds is
// five; an even count makes the ±e errors cancel in the mean): with fewer
// than MinSeeds no gap is a claim, and nothing is fitted.
func TestGapsAndFitsRecoverExponent(t *testing.T) {
	few, err := Gaps(lawRuns(0.002, 4, 0, MinSeeds-1), nil, "sync")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range few {
		if g.Fitted {
			t.Errorf("%d replicates, S = %d: fitted", MinSeeds-1, g.Stages)
		}
	}
	for _, e := range []float64{0, 0.05} {
		gaps, err := Gaps(lawRuns(0.002, 4, e, 6), nil, "sync")
		if err != nil {
			t.Fatal(err)
		}
		if len(gaps) != 5 {
			t.Fatalf("%d gap rows, want one per S (5)", len(gaps))
		}
		for _, g := range gaps {
			want := 0.002 * math.Pow(float64(g.Stages), 4)
			if g.Stages == 1 {
				want = -0.5
			}
			if math.Abs(g.Mean-want) > 1e-12*math.Max(1, want) || g.Replicates != 6 || g.Loss != LossFinal || g.StepSize != 0.1 || !g.AtEdge {
				t.Errorf("e = %g, S = %d: %+v, want mean %g over 6 replicates at step 0.1, at the grid's edge", e, g.Stages, g, want)
			}
			if g.Fitted != (g.Stages > 1) {
				t.Errorf("e = %g, S = %d: fitted %v", e, g.Stages, g.Fitted)
			}
		}
		fits := Fits(gaps)
		var f *ExponentFit
		for i := range fits {
			if fits[i].Variable == FitStages {
				f = &fits[i]
			}
		}
		if f == nil || f.Levels != 4 || f.Points != 24 || f.Predicted != 4 {
			t.Fatalf("e = %g: fits %+v, want one over S with 4 levels and 24 points", e, fits)
		}
		if e == 0 && (math.Abs(f.Exponent-4) > 1e-9 || math.Abs(f.Coefficient-0.002) > 1e-12) {
			t.Errorf("exact data: b = %g, a = %g; want 4, 0.002", f.Exponent, f.Coefficient)
		}
		if e > 0 && !(f.Low < 4 && 4 < f.High && f.High-f.Low > 0) {
			t.Errorf("e = %g: interval [%g, %g] does not hold 4", e, f.Low, f.High)
		}
	}
}

// A replicate whose PipeDream run diverged is left out of its gap; the
// held-out loss of the last record is used when every run has one (the
// LM, whose held-out loss is that record's).
func TestGapsValidationAndDiverged(t *testing.T) {
	runs := lawRuns(0.01, 2, 0, 3)
	var curves []CurvePoint
	for i := range runs {
		r := &runs[i]
		r.HeldOutLoss = r.FinalLoss + 1
		curves = append(curves, CurvePoint{RunID: r.RunID, BlockUpdates: 1, ValidationLoss: 9},
			CurvePoint{RunID: r.RunID, BlockUpdates: 2, ValidationLoss: r.FinalLoss + 1})
		if r.Method == "pipedream" && r.Stages == 4 && r.Replicate == 2 {
			r.Outcome = OutcomeDiverged
		}
	}
	gaps, err := Gaps(runs, curves, "sync")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gaps {
		if g.Loss != LossValidation {
			t.Errorf("S = %d: loss %q, want validation", g.Stages, g.Loss)
		}
		want := int32(3)
		if g.Stages == 4 {
			want = 2
		}
		if g.Replicates != want {
			t.Errorf("S = %d: %d replicates, want %d", g.Stages, g.Replicates, want)
		}
	}
}

// A gap reports the loss its steps were selected on: the held-out loss
// under best-final where the runs have one (a convex objective: no
// validation curve), the training loss under best-final-training. The
// held-out gap here is the training gap plus 0.5 for PipeDream (its
// held-out loss adds 0.5 that sync's does not).
func TestGapsReportTheSelectionMetric(t *testing.T) {
	for rule, want := range map[string]string{"best-final": MetricHeldOut, RuleBestFinalTraining: LossFinal} {
		runs := lawRuns(0.01, 2, 0, 2)
		for i := range runs {
			r := &runs[i]
			r.SelectionRule, r.HeldOutLoss = rule, r.FinalLoss
			if r.Method == "pipedream" {
				r.HeldOutLoss += 0.5
			}
		}
		gaps, err := Gaps(runs, nil, "sync")
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range gaps {
			mean := 0.01 * float64(g.Stages*g.Stages)
			if g.Stages == 1 {
				mean = -0.5
			}
			if want == MetricHeldOut {
				mean += 0.5
			}
			if g.Loss != want || math.Abs(g.Mean-mean) > 1e-12 {
				t.Errorf("rule %s, S = %d: %s gap %g, want %s %g", rule, g.Stages, g.Loss, g.Mean, want, mean)
			}
		}
	}
}

// The gaps and fits tables read back as written (the per-replicate gaps
// aside, which are not written).
func TestGapTablesRoundTrip(t *testing.T) {
	gaps, err := Gaps(lawRuns(0.002, 4, 0.05, 2), nil, "sync")
	if err != nil {
		t.Fatal(err)
	}
	fits := Fits(gaps)
	dir := t.TempDir()
	if err := WriteGaps(filepath.Join(dir, GapsFile), gaps); err != nil {
		t.Fatal(err)
	}
	if err := WriteFits(filepath.Join(dir, FitsFile), fits); err != nil {
		t.Fatal(err)
	}
	g2, err := ReadGaps(filepath.Join(dir, GapsFile))
	if err != nil {
		t.Fatal(err)
	}
	f2, err := ReadFits(filepath.Join(dir, FitsFile))
	if err != nil {
		t.Fatal(err)
	}
	for i := range gaps {
		gaps[i].Gaps = nil
	}
	if fmt.Sprint(g2) != fmt.Sprint(gaps) || fmt.Sprint(f2) != fmt.Sprint(fits) {
		t.Errorf("read back\n%v\n%v\nwant\n%v\n%v", g2, f2, gaps, fits)
	}
}

// The gaps and fits tables' columns are no SQL reserved word
// (names_test.go's list) and none appears twice.
func TestGapColumnNames(t *testing.T) {
	for _, s := range []*arrow.Schema{GapSchema(), FitSchema()} {
		seen := map[string]bool{}
		for _, f := range s.Fields() {
			if slices.Contains(sqlReserved, f.Name) || seen[f.Name] {
				t.Errorf("column %q is reserved or repeated", f.Name)
			}
			seen[f.Name] = true
		}
	}
}
