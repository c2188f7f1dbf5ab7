package validation

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestKorthikantiTranscription checks the transcribed Table 5 against
// figures from other sources: the parameter count each model is named by
// (the GPT as pipelab builds it, within 2%), GPUs = tp·pp·dp, and the model
// FLOPs utilisation Table 5 and Megatron-LM's README.md give for the
// paper's method (22B 41.5%, 175B 51.4%, 530B 56.0%, 1T 56.3%; the abstract
// 54.2% for 530B on 2,240 GPUs), recomputed independently of the model
// from the selective iteration time: Narayanan et al.'s
// equation 3 without the recomputation, 72·B·s·l·h²·(1 + s/6h + V/12lh),
// over the time, the GPUs and the A100's 312 teraFLOP/s, within half a
// point.
func TestKorthikantiTranscription(t *testing.T) {
	named := map[string]float64{"22B": 22, "175B": 175, "530B": 530, "1T": 1000}
	readmeMFU := map[string]float64{"22B": 0.415, "175B": 0.514, "530B": 0.560, "1T": 0.563}
	if len(korthikantiModels) != 4 {
		t.Fatalf("%d models, Table 5 has 4", len(korthikantiModels))
	}
	for _, m := range append(korthikantiModels[:4:4], korthikantiScaled) {
		if r := m.run(true); r.data() > 1 {
			// §6.3 and the abstract: 54.2% at 2,240 GPUs.
			readmeMFU[m.name] = 0.542
			if r.data() != 8 || m.gpus != 2240 {
				t.Errorf("the scaled 530B has data-parallel size %d on %d GPUs, want 8 on 2240", r.data(), m.gpus)
			}
		}
		r := m.run(true)
		if got := r.network().Params() / 1e9; math.Abs(got/named[m.name]-1) > 0.02 {
			t.Errorf("%s: %.1fB parameters", m.name, got)
		}
		if m.gpus != m.tp*m.pp*r.data() {
			t.Errorf("%s: %d GPUs, tp·pp·dp = %d", m.name, m.gpus, m.tp*m.pp*r.data())
		}
		if err := r.check(); err != nil {
			t.Errorf("%s: %v", m.name, err)
		}
		B, s, l, h, V := float64(m.batch), 2048.0, float64(m.layers), float64(m.hidden), 51200.0
		flops := 72 * B * s * l * h * h * (1 + s/(6*h) + V/(12*l*h))
		mfu := flops / (m.selective * float64(m.gpus) * 312e12)
		if math.Abs(mfu-readmeMFU[m.name]) > 0.005 {
			t.Errorf("%s: %.2f s give an MFU of %.1f%%; Megatron-LM's README says %.1f%%", m.name, m.selective, 100*mfu, 100*readmeMFU[m.name])
		}
		if m.full != 0 && m.selective >= m.full {
			t.Errorf("%s: the paper's method %.2f s is not faster than full recomputation %.2f s", m.name, m.selective, m.full)
		}
	}
}

// Each Korthikanti row is the run's simulated iteration under the SC21
// knobs, out of sample, beside the transcribed time; the summaries are the
// rows' errors recomputed here.
func TestKorthikantiRows(t *testing.T) {
	v := validated(t)
	k := clusterKnobs{efficiency: v.Cluster.Efficiency, passes: v.Cluster.ElementwisePasses}
	byName := map[string]korthikantiModel{}
	for _, m := range append(korthikantiModels[:4:4], korthikantiScaled) {
		byName[fmt.Sprintf("%s (t %d, p %d, d %d)", m.name, m.tp, m.pp, m.run(true).data())] = m
	}
	n := 0
	for _, row := range v.Rows {
		if row.Section != "korthikanti" {
			continue
		}
		n++
		name := row.Config
		m, ok := byName[name]
		if !ok {
			t.Fatalf("row %s is not a Table 5 model", row.Config)
		}
		selective := strings.Contains(row.Quantity, "selective")
		want := m.full
		if selective {
			want = m.selective
		}
		it, err := m.run(selective).iteration(k)
		if err != nil {
			t.Fatal(err)
		}
		if row.Published != want || row.Predicted != it || row.Calibration != "out" {
			t.Errorf("%s %s: published %g, predicted %g, %s; want %g, %g, out", name, row.Quantity, row.Published, row.Predicted, row.Calibration, want, it)
		}
	}
	if n != 9 {
		t.Errorf("%d Korthikanti rows, want 9: Table 5's eight and the 530B at 8-way data parallelism", n)
	}
}

// The summaries are recomputed from the rows: mean and largest |error|
// over the out-of-sample rows with a published figure, per table, and the
// last over every timing table.
func TestSummaries(t *testing.T) {
	v := validated(t)
	tables := [][]string{{"stage", "throughput", "megatron"}, {"sc21"}, {"korthikanti", "layer"}, timingSections}
	if len(v.Summaries) != len(tables) {
		t.Fatalf("%d summaries, want %d", len(v.Summaries), len(tables))
	}
	for i, sections := range tables {
		var sum, worst float64
		n, beyond := 0, 0
		for _, r := range v.Rows {
			in := false
			for _, s := range sections {
				in = in || r.Section == s
			}
			if !in || r.Calibration != "out" || math.IsNaN(r.Published) {
				continue
			}
			e := math.Abs(r.Predicted/r.Published - 1)
			n++
			sum += e
			worst = max(worst, e)
			if e > 0.15 {
				beyond++
			}
		}
		s := v.Summaries[i]
		if s.Rows != n || math.Abs(s.MAE-sum/float64(n)) > 1e-12 || math.Abs(s.Max-worst) > 1e-12 || s.Beyond != beyond {
			t.Errorf("summary %q: %+v; the rows give %d, MAE %g, max %g, %d beyond 15%%", s.Tables, s, n, sum/float64(n), worst, beyond)
		}
	}
	last := v.Summaries[len(v.Summaries)-1]
	if last.Rows != v.Summaries[0].Rows+v.Summaries[1].Rows+v.Summaries[2].Rows {
		t.Errorf("every timing row counts %d, the tables %d + %d + %d", last.Rows, v.Summaries[0].Rows, v.Summaries[1].Rows, v.Summaries[2].Rows)
	}
}

// Table 4's rows: ten, out of sample, each within the 10% docs/validation.md
// states (5% before the tensor-parallel all-reduces ran at NCCL's 230 GB/s
// and the knobs were calibrated again with them), and the forward's saving
// under sequence parallelism (the layer norms and dropouts on 1/t of the
// tokens) the measured 7.2/7.7 to within two points.
func TestKorthikantiLayerRows(t *testing.T) {
	v := validated(t)
	forward := map[string]float64{}
	n := 0
	for _, r := range v.Rows {
		if r.Section != "layer" {
			continue
		}
		n++
		if r.Calibration != "out" || math.Abs(r.Error) > 0.10 {
			t.Errorf("%s: %s, error %+.1f%%", r.Quantity, r.Calibration, 100*r.Error)
		}
		if what, ok := strings.CutPrefix(r.Quantity, "forward, "); ok {
			forward[what] = r.Predicted
		}
	}
	if n != 2*len(korthikantiLayerTimes) {
		t.Errorf("%d Table 4 rows, want %d", n, 2*len(korthikantiLayerTimes))
	}
	if got := forward["sequence parallel"] / forward["no recomputation"]; math.Abs(got-7.2/7.7) > 0.02 {
		t.Errorf("sequence parallelism makes the forward %.3f of its time, Table 4 %.3f", got, 7.2/7.7)
	}
}
