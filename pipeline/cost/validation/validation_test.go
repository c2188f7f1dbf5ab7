package validation

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pipelab/pipelab/pipeline/cost"
)

// The calibration makes the 1.5B middle stage take exactly the measured
// T_W and T_F + T_B (Appendix D, docs/reference.md §5), and the activation
// rows equal their formulas.
func TestValidateTimingModel(t *testing.T) {
	v := validated(t)
	got := map[string]float64{}
	for _, r := range v.Rows {
		if r.Section == "stage" && r.Config == "1.5B (p 8, b 6)" {
			got[r.Quantity] = r.Predicted
		}
		if r.Section == "activations" && r.Predicted != r.Published {
			t.Errorf("%s: peak %g, formula %g", r.Quantity, r.Predicted, r.Published)
		}
	}
	if math.Abs(got["T_W"]-9.337) > 1e-9 || math.Abs(got["T_F"]+got["T_B"]-(18.522+18.086)) > 1e-9 {
		t.Errorf("calibrated 1.5B stage: T_W %g, T_F + T_B %g ms, want the measured 9.337 and %g", got["T_W"], got["T_F"]+got["T_B"], 18.522+18.086)
	}
	if v.Efficiency <= 0 || v.Efficiency > 1 || v.ElementwisePasses < 0 {
		t.Errorf("efficiency %g, passes %g", v.Efficiency, v.ElementwisePasses)
	}
}

// TestSC21Rows recomputes each SC21 row's teraFLOP/s from its iteration
// time independently of the model: equation 3 of Narayanan et al.,
// 96·B·s·l·h²·(1 + s/6h + V/16lh), over the GPUs and the iteration time
// the note gives, and checks the out-of-sample summary against the rows.
func TestSC21Rows(t *testing.T) {
	v := validated(t)
	var sum, worst float64
	n := 0
	byName := map[string]sc21Run{}
	for _, r := range sc21Runs {
		byName[r.name] = r
	}
	for _, row := range v.Rows {
		if row.Section != "sc21" {
			continue
		}
		name, _, _ := strings.Cut(row.Config, " ")
		r, ok := byName[name]
		if !ok {
			t.Fatalf("row %s is not a Table 1 run", row.Config)
		}
		if row.Published != r.teraFLOPsPerGPU || (row.Calibration == "in") != r.calibrates {
			t.Errorf("%s: published %g, calibration %q", name, row.Published, row.Calibration)
		}
		it, err := r.iteration(clusterKnobs{v.Cluster.Efficiency, v.Cluster.ElementwisePasses})
		if err != nil {
			t.Fatal(err)
		}
		B, s, l, h, V := float64(r.batch), 2048.0, float64(r.layers), float64(r.hidden), 51200.0
		want := 96 * B * s * l * h * h * (1 + s/(6*h) + V/(16*l*h)) / (it * float64(r.gpus)) / 1e12
		if math.Abs(row.Predicted-want) > 1e-9*want {
			t.Errorf("%s: %g TFLOP/s, equation 3 over %g s gives %g", name, row.Predicted, it, want)
		}
		if row.Calibration == "out" {
			n++
			sum += math.Abs(row.Error)
			worst = max(worst, math.Abs(row.Error))
		}
	}
	c := v.Cluster
	if n != 6 || c.OutOfSampleRows != n || math.Abs(c.OutOfSampleMAE-sum/float64(n)) > 1e-12 || c.OutOfSampleMax != worst {
		t.Errorf("summary %+v, rows give %d out of sample, MAE %g, max %g", c, n, sum/float64(n), worst)
	}
}

// docs/validation.md shows what "pipelab validate" prints.
func TestValidationDocMatchesCommand(t *testing.T) {
	v := validated(t)
	var b bytes.Buffer
	if err := v.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "validation.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "<!-- validate:begin -->\n```\n")
	block, _, ok2 := strings.Cut(block, "```\n<!-- validate:end -->")
	if !ok || !ok2 {
		t.Fatal("docs/validation.md has no validate:begin/end block")
	}
	if block != b.String() {
		t.Errorf("docs/validation.md's tables differ from the command's output; regenerate them with make validate:\n%s", b.String())
	}
}

// examples/hardware/selene-a100.yaml carries the SC21 calibration, rounded to the
// digits it prints, and otherwise the presets' A100, NVLink 3 and HDR.
func TestSeleneHardwareFile(t *testing.T) {
	h, err := cost.ReadHardware(filepath.Join("..", "..", "..", "examples", "hardware", "selene-a100.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	v := validated(t)
	if math.Abs(h.Efficiency-v.Cluster.Efficiency) > 5e-5 || math.Abs(h.ElementwisePasses-v.Cluster.ElementwisePasses) > 5e-3 {
		t.Errorf("the file has efficiency %g and %g passes; the calibration gives %.4f and %.2f", h.Efficiency, h.ElementwisePasses,
			v.Cluster.Efficiency, v.Cluster.ElementwisePasses)
	}
	want, err := sc21Hardware()
	if err != nil {
		t.Fatal(err)
	}
	if h.GPU.PeakFLOPS != want.GPU.PeakFLOPS || h.GPU.MemoryBandwidth != want.GPU.MemoryBandwidth || h.RanksPerNode != want.RanksPerNode ||
		h.Link.Bandwidth != want.Link.Bandwidth || h.Link.CollectiveBandwidth != want.Link.CollectiveBandwidth || h.InterNode.Bandwidth != want.InterNode.Bandwidth {
		t.Errorf("the file's hardware %+v differs from the presets' %+v", h, want)
	}
}

// examples/hardware/zb-a100-roce.yaml carries the Zero Bubble calibration,
// rounded to the digits it prints (efficiency, passes, the point-to-point
// overhead of both links and the action gap), on the validation's own
// cluster.
func TestZeroBubbleHardwareFile(t *testing.T) {
	h, err := cost.ReadHardware(filepath.Join("..", "..", "..", "examples", "hardware", "zb-a100-roce.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	v := validated(t)
	if math.Abs(h.Efficiency-v.Efficiency) > 5e-5 || math.Abs(h.ElementwisePasses-v.ElementwisePasses) > 5e-4 ||
		math.Abs(h.ActionGap-v.ActionGap) > 5e-7 || math.Abs(h.Link.P2POverhead-v.P2POverhead) > 5e-8 || h.InterNode.P2POverhead != h.Link.P2POverhead {
		t.Errorf("the file has efficiency %g, %g passes, action gap %g s, overheads %g and %g s; the calibration gives %.4f, %.3f, %.4g and %.4g",
			h.Efficiency, h.ElementwisePasses, h.ActionGap, h.Link.P2POverhead, h.InterNode.P2POverhead, v.Efficiency, v.ElementwisePasses, v.ActionGap, v.P2POverhead)
	}
	want, err := cost.ParseHardware(zbCluster, "hardware/zb-a100-roce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if h.GPU.PeakFLOPS != want.GPU.PeakFLOPS || h.GPU.MemoryBandwidth != want.GPU.MemoryBandwidth || h.RanksPerNode != want.RanksPerNode ||
		h.Link.Bandwidth != want.Link.Bandwidth || h.Link.P2PBandwidth != want.Link.P2PBandwidth || h.Link.CollectiveBandwidth != want.Link.CollectiveBandwidth ||
		h.InterNode.Bandwidth != want.InterNode.Bandwidth || h.InterNode.Latency != want.InterNode.Latency {
		t.Errorf("the file's hardware %+v differs from the validation's %+v", h, want)
	}
}

// The validation writes as JSON, a missing published figure and its error
// as null, the others as numbers.
func TestValidationJSON(t *testing.T) {
	v := validated(t)
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Rows []struct {
			Config    string   `json:"config"`
			Quantity  string   `json:"quantity"`
			Published *float64 `json:"published"`
			Error     *float64 `json:"error"`
			Source    string   `json:"source"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Rows) != len(v.Rows) {
		t.Fatalf("%d rows read back, %d written", len(back.Rows), len(v.Rows))
	}
	for i, r := range back.Rows {
		want := v.Rows[i]
		if (r.Published == nil) != math.IsNaN(want.Published) || (r.Error == nil) != math.IsNaN(want.Error) || r.Source != want.Source {
			t.Errorf("row %s %s: published %v, error %v, source %q; want %g, %g, %q", r.Config, r.Quantity, r.Published, r.Error, r.Source, want.Published, want.Error, want.Source)
		}
	}
}

// TestSC21Transcription checks the transcribed Table 1 rows against the
// table's other columns: the parameters in billions (the run's GPT as
// pipelab builds it, tied head and learned positions, against the
// table's 1.7 to 1008.0) and the model-parallel size (tp·pp against the
// table's 1, 2, 4, 8, 16, 32, 64, 128, 280, 512), and that every row
// divides as Megatron-LM needs.
func TestSC21Transcription(t *testing.T) {
	params := []float64{1.7, 3.6, 7.5, 18.4, 39.1, 76.1, 145.6, 310.1, 529.6, 1008.0}
	modelParallel := []int{1, 2, 4, 8, 16, 32, 64, 128, 280, 512}
	if len(sc21Runs) != len(params) {
		t.Fatalf("%d runs, Table 1 has %d rows", len(sc21Runs), len(params))
	}
	for i, r := range sc21Runs {
		if got := r.network().Params() / 1e9; math.Abs(got-params[i]) > 0.05+0.001*params[i] {
			t.Errorf("%s: %.2fB parameters, Table 1 says %.1fB", r.name, got, params[i])
		}
		if r.tp*r.pp != modelParallel[i] {
			t.Errorf("%s: tp·pp = %d, Table 1's model-parallel size is %d", r.name, r.tp*r.pp, modelParallel[i])
		}
		if err := r.check(); err != nil {
			t.Errorf("%s: %v", r.name, err)
		}
	}
}

// validated is ValidateTimingModel, run once for the package's tests (it
// is deterministic, and about a second).
var validated = func() func(*testing.T) *TimingValidation {
	var once sync.Once
	var v *TimingValidation
	var err error
	return func(t *testing.T) *TimingValidation {
		t.Helper()
		once.Do(func() { v, err = ValidateTimingModel() })
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}()

// TestZBVocabularyFromParameterCounts checks the vocabulary against the
// only statement of it the paper makes: Table 3's model names are their
// parameter counts in billions, to one decimal. Each count is
// l(12h² + 13h) + Vh + 1024h + 2h (layers, the tied embedding, learned
// positions and the final LayerNorm), computed here by hand, apart from
// cost.Network.Params; zbVocab must round every name right, and GPT-2's
// padded 50,304 must not (it gives 6.3B, 14.7B and 28.4B).
func TestZBVocabularyFromParameterCounts(t *testing.T) {
	count := func(s zbSetup, vocab float64) float64 {
		l, h := float64(s.layers), float64(s.hidden)
		return l*(12*h*h+13*h) + vocab*h + zbSequence*h + 2*h
	}
	wrong := 0
	for _, s := range zbSetups {
		name, err := strconv.ParseFloat(strings.TrimSuffix(s.name, "B"), 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := math.Round(count(s, zbVocab)/1e8) / 10; got != name {
			t.Errorf("%s: %d words give %.1fB parameters", s.name, zbVocab, got)
		}
		if got := s.network().Params(); math.Abs(got-count(s, zbVocab)) > 0.5 {
			t.Errorf("%s: cost.Network.Params %.0f, by hand %.0f", s.name, got, count(s, zbVocab))
		}
		if math.Round(count(s, 50304)/1e8)/10 != name {
			wrong++
		}
	}
	if wrong != 3 {
		t.Errorf("GPT-2's padded vocabulary rounds %d of the 4 names wrong, want 3", wrong)
	}
}
