package optim

import (
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/pipelab/pipelab/objectives"
	"github.com/pipelab/pipelab/pipeline"
)

// toy is the two-stage least-squares problem of
// testdata/torch_optim_two_stage.py: f_b(x) = ½(a_b·x − y_b)², blocks
// x[0:2] and x[2:4], three batches, full gradients only.
type toy struct{}

var (
	toyA = [3][4]float64{{1, 2, -1, 0.5}, {0.5, -1, 2, 1}, {-1.5, 0.25, 1, -2}}
	toyY = [3]float64{1, -0.5, 2}
)

func (toy) Dim() int        { return 4 }
func (toy) Blocks() []int   { return []int{0, 2, 4} }
func (toy) Batches() int    { return 3 }
func (toy) Init() []float64 { return make([]float64, 4) }
func (toy) residual(x []float64, b int) float64 {
	r := -toyY[b]
	for j, a := range toyA[b] {
		r += a * x[j]
	}
	return r
}
func (t toy) Loss(x []float64) float64 {
	var f float64
	for b := range toyA {
		r := t.residual(x, b)
		f += r * r / 2
	}
	return f / 3
}
func (t toy) Gradient(g, x []float64, b int, _ *rand.Rand) {
	r := t.residual(x, b)
	for j, a := range toyA[b] {
		g[j] = a * r
	}
}

// The optimizers against torch.optim's formulas: the final point of a
// two-stage PipeDream replay (S = 2, N = 4, weight stashing) of the toy,
// computed for each optimizer by testdata/torch_optim_two_stage.py, an
// independent implementation of torch's documented update rules (standard
// library only, the replay order written out by hand).
func TestOptimizersMatchTorchFormulas(t *testing.T) {
	rows := readTestCSV(t, "testdata/torch_optim_two_stage.csv")
	var err error
	tl := generate(t, "pipedream", pipeline.Shape{Ranks: 2, Microbatches: 4})
	seen := map[Algorithm]bool{}
	for _, row := range rows[1:] {
		alg := Algorithm(row[0])
		seen[alg] = true
		want := make([]float64, 4)
		for j := range want {
			if want[j], err = strconv.ParseFloat(row[j+1], 64); err != nil {
				t.Fatal(err)
			}
		}
		opt := Optimizer{Algorithm: alg, Momentum: 0.9, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}
		if alg == AdamW {
			opt.WeightDecay = 0.01
		}
		res := mustRun(t, toy{}, PipeDream{Timeline: tl}, Settings{StepSize: 0.1, Optimizer: opt})
		closeVectors(t, string(alg), res.X, want, 1e-12)
	}
	// Lion and Muon are checked against references of their own
	// (optimizer_lion_muon_test.go).
	for _, alg := range []Algorithm{SGD, Momentum, Nesterov, Adam, AdamW} {
		if !seen[alg] {
			t.Errorf("%s has no row in the torch table", alg)
		}
	}
}

// reference is an independent single-block implementation of torch.optim's
// rules (docs/reference.md §4), written apart from stepper.
type reference struct {
	opt     Optimizer
	gamma   float64
	t       int
	buf     []float64
	m, v    []float64
	started bool
}

func (ref *reference) step(x, g []float64) {
	o := ref.opt.withDefaults()
	ref.t++
	if ref.buf == nil {
		ref.buf, ref.m, ref.v = make([]float64, len(x)), make([]float64, len(x)), make([]float64, len(x))
	}
	for j := range x {
		switch o.Algorithm {
		case SGD:
			x[j] -= ref.gamma * g[j]
		case Momentum, Nesterov:
			if ref.started {
				ref.buf[j] = o.Momentum*ref.buf[j] + g[j]
			} else {
				ref.buf[j] = g[j]
			}
			d := ref.buf[j]
			if o.Algorithm == Nesterov {
				d = g[j] + o.Momentum*ref.buf[j]
			}
			x[j] -= ref.gamma * d
		case Lion:
			c := o.Beta1*ref.m[j] + (1-o.Beta1)*g[j]
			x[j] *= 1 - ref.gamma*o.WeightDecay
			if c != 0 {
				x[j] -= ref.gamma * math.Copysign(1, c)
			}
			ref.m[j] = o.Beta2*ref.m[j] + (1-o.Beta2)*g[j]
		default: // Adam, AdamW, and Muon, which is AdamW on blocks without matrices
			if o.Algorithm == AdamW || o.Algorithm == Muon {
				x[j] *= 1 - ref.gamma*o.WeightDecay
			}
			ref.m[j] = o.Beta1*ref.m[j] + (1-o.Beta1)*g[j]
			ref.v[j] = o.Beta2*ref.v[j] + (1-o.Beta2)*g[j]*g[j]
			mhat := ref.m[j] / (1 - math.Pow(o.Beta1, float64(ref.t)))
			vhat := ref.v[j] / (1 - math.Pow(o.Beta2, float64(ref.t)))
			x[j] -= ref.gamma * mhat / (math.Sqrt(vhat) + o.Eps)
		}
	}
	ref.started = true
}

// With one stage there is no staleness: every method, with every
// optimizer, is plain sequential training with that optimizer, batch k mod
// Batches at update k (the algebra: one stage's forward and backward are
// adjacent, so the stashed, current, predicted (τ = 0) and corrected
// (w_now − w_stash = 0, τ·δ = 0) blocks coincide, 2BW's groups hold A = S =
// 1 microbatch, LocalSGD has one replica, sync one microbatch per
// iteration, RPD's exact delays are zero).
func TestOneStageEqualsSequentialTraining(t *testing.T) {
	const k, gamma = 60, 0.01
	objs := map[string]objectives.Objective{
		"quadratic": quadratic(t, 40, 6, 1, 5, 2),
		"logistic":  logistic(t, 40, 6, 1, 5, 0, 2),
	}
	pd := generate(t, "pipedream", pipeline.Shape{Ranks: 1, Microbatches: k})
	flush := generate(t, "1f1b", pipeline.Shape{Ranks: 1, Microbatches: 1})
	local := generate(t, "localsgd", pipeline.Shape{Ranks: 1, Microbatches: k, Replicas: 1, LocalSteps: 3})
	exact, err := Delays(pd)
	if err != nil {
		t.Fatal(err)
	}
	methods := []Method{PipeDream{Timeline: pd}, PipeDreamNoStash{Timeline: pd}, TwoBW{Timeline: pd},
		PipeMare{Timeline: pd, Decay: DefaultPipeMareDecay}, Predict{Timeline: pd}, DelayCompensation{Timeline: pd, Lambda: 1},
		Sync{Timeline: flush, Iterations: k}, LocalSGD{Timeline: local}, RPD{Delays: exact}}
	for name, obj := range objs {
		for _, alg := range Algorithms {
			opt := Optimizer{Algorithm: alg, Momentum: 0.9}
			if alg == AdamW || alg == Lion || alg == Muon {
				opt.WeightDecay = 0.01
			}
			want := obj.Init()
			ref := reference{opt: opt, gamma: gamma}
			g := make([]float64, len(want))
			for i := 0; i < k; i++ {
				obj.Gradient(g, want, i%obj.Batches(), nil)
				ref.step(want, g)
			}
			for _, m := range methods {
				res := mustRun(t, obj, m, Settings{StepSize: gamma, Optimizer: opt})
				if res.BlockUpdates != k {
					t.Errorf("%s %s %s: %d updates, want %d", name, m.Name(), alg, res.BlockUpdates, k)
				}
				closeVectors(t, name+" "+m.Name()+" "+string(alg), res.X, want, 1e-12)
			}
		}
	}
}

// The learning-rate schedule against its closed form: warm-up γ·t/K for
// t < K, then half a cosine from γ at t = K to 0 at the stage's last
// update (horizon H): γ·(1 + cos(π(t − K)/(H − K)))/2.
func TestLearningRateSchedule(t *testing.T) {
	r := &run{set: Settings{StepSize: 0.5, Optimizer: Optimizer{Schedule: Cosine, Warmup: 4}}, blocks: []int{0, 1}, stages: 1}
	st := newStepper(r, 1, 20)
	for _, c := range []struct {
		t    int
		want float64
	}{{1, 0.125}, {3, 0.375}, {4, 0.5}, {12, 0.25}, {20, 0}} {
		if got := st.rate(c.t); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("rate(%d) = %.17g, want %g", c.t, got, c.want)
		}
	}
	r.set.Optimizer = Optimizer{}
	if got := newStepper(r, 1, 20).rate(7); got != 0.5 {
		t.Errorf("constant rate = %g, want γ = 0.5 exactly", got)
	}
}

func TestOptimizerErrors(t *testing.T) {
	for _, o := range []Optimizer{
		{Algorithm: "sophia"}, {Schedule: "linear"}, {Algorithm: Muon, MuonScale: "spectral"}, {Algorithm: Adam, MuonScale: MuonMatchRMS}, {Algorithm: Momentum, Momentum: 1}, {Algorithm: Adam, Beta1: 1},
		{Algorithm: Adam, Eps: -1}, {Algorithm: Adam, WeightDecay: 0.1}, {Warmup: -1},
	} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// readTestCSV reads the rows of a CSV table in testdata, its header first.
func readTestCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
