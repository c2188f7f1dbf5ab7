package experiments

import "fmt"

// figureRemedies asks which staleness remedy wins in seconds: every
// asynchronous method on the asynchronous replay of 1F1B and ZB-H1 tables,
// against LocalSGD and synchronous SGD, on the character LM (the shipped
// text, validation loss) and on logistic regression, each with momentum
// SGD and with Adam, timed by the GPU model (docs/figures.md, remedies).
var figureRemedies = Figure{
	Name:    "remedies",
	Summary: remediesSummary(),
	Specs: func(quick bool) []*Spec {
		var out []*Spec
		for _, o := range remedyObjectives(quick) {
			for _, table := range o.tables {
				out = append(out, remedySpec(o, table, quick))
			}
		}
		return out
	},
	// Quick: 59.5 s of CPU at the former LM (docs/figures.md, remedies;
	// the LM's quick runs are fewer now); full: the logistic part's 93 s
	// and the LM part's 664 s, measured at load 1–2 (docs/charlm.md,
	// "What the figures can afford").
	Seconds: [2]float64{60, 760},
}

// remediesSummary is the remedies figure's summary, with the LM's size
// and the characters its runs see in the full size.
func remediesSummary() string {
	lm := ShakespeareLM()
	return fmt.Sprintf("staleness remedies against sync in GPU seconds: logistic regression (every remedy, RPD, LocalSGD; "+
		"1F1B and ZB-H1; momentum and Adam) and the LM on the shipped text (sync, pipedream, 2bw, predict on ZB-H1 with Adam; "+
		"E %d, T %d, %d/%d parameters at S = 4/8, %.2f–%.2fM characters seen), loss against time and time to a target loss",
		lm.Embed, lm.SeqLen, lm.Parameters(4), lm.Parameters(8),
		float64(lm.Characters(remedyLMSyncMicrobatches4))/1e6, float64(lm.Characters(remedyLMAsyncMicrobatches8))/1e6)
}

// remedyLMSyncMicrobatches4 and remedyLMAsyncMicrobatches8 are the fewest
// and the most microbatches of the full remedies LM's runs: sync at S = 4
// and the asynchronous methods at S = 8 in remedyLMBudget (tested).
const (
	remedyLMSyncMicrobatches4  = 1404
	remedyLMAsyncMicrobatches8 = 2728
)

// remedyMethods are the asynchronous methods the remedies figure compares:
// every one but ef, which came after the figure and is measured with the
// optimizers it was made for (Muon, Lion) in a figure of its own.
var remedyMethods = []string{"pipedream", "pd-nostash", "2bw", "pipemare", "predict", "dc"}

// remedyObjective is one problem of the remedies figure: its spec fields
// and the centre of each optimizer's step grid (log2 of the step PipeDream
// is known to take, docs/figures.md), from which every method's grid is
// placed.
type remedyObjective struct {
	label string
	spec  Spec
	// optimizers are the per-stage optimizers compared, each with the
	// centre of its grid (log2) and the shift of sync's, 2BW's and
	// LocalSGD's grids: they average S gradients per update, a larger step.
	optimizers []remedyOptimizer
	// methods are the asynchronous methods replaying each table; rpd and
	// localsgd, which replay neither table, join the 1F1B spec when set.
	methods        []string
	rpdAndLocalSGD bool
	tables         []string
	stages         [2][]int // quick, full
	seeds          [2]int
	points         [2]int // grid points around the centre, quick and full
	budget, target [2]float64
	// above and aboveShifted add grid points above the asynchronous
	// methods' grids and above the shifted grids of sync, 2bw and LocalSGD
	// in the full size, where a best step was the top of its grid
	// (docs/figures.md, remedies).
	above, aboveShifted int
	// logPoints is the records per run at the full size (0: the default
	// 100); fewer records thin the curves, not the time to target, which
	// stays on the default grid (optim.Settings.TargetLoss).
	logPoints int
}

// remedyOptimizer is one optimizer of a remedies spec and its grid:
// the asynchronous methods' centre (log2), and the shifts of sync's and
// LocalSGD's grid and of 2BW's above it.
type remedyOptimizer struct {
	spec                 OptimizerSpec
	centre, shift, twoBW int
}

// remedyLMBudget is the full remedies figure's LM budget in GPU seconds:
// on the ZB-H1 table at S = 4 sync runs 1,404 microbatches in it and the
// asynchronous methods 1,673, at S = 8 2,304 and 2,728 (docs/charlm.md,
// "What the figures can afford").
const remedyLMBudget = 60

func remedyObjectives(quick bool) []remedyObjective {
	lm := ShakespeareLM()
	var lmSpec Spec
	lm.Apply(&lmSpec)
	return []remedyObjective{
		// The LM at ShakespeareLM's shape with its Adam recipe, on the
		// table where sync idles least, at the methods and S that the
		// budget holds (docs/charlm.md, "What the figures can afford").
		{label: "lm", spec: lmSpec,
			// Centres from its first two full runs (docs/charlm.md,
			// "What the figures can afford"): sync chose 2^-7 inside
			// 2^-8..2^-6 and 2bw 2^-9 inside 2^-10..2^-8, while
			// pipedream and predict chose the bottom of 2^-9..2^-7 and
			// then of 2^-10..2^-8.
			optimizers: []remedyOptimizer{{spec: lm.Optimizer, centre: -10, shift: 3, twoBW: 1}},
			methods:    []string{"pipedream", "2bw", "predict"},
			tables:     []string{"zb-h1"},
			stages:     [2][]int{{4}, {4, 8}}, seeds: [2]int{1, 2}, points: [2]int{2, 3},
			budget: [2]float64{10, remedyLMBudget}, target: [2]float64{3.3128, 2.6},
			logPoints: 30},
		{label: "logistic", spec: Spec{Objectives: []string{"logistic"}, N: 600, D: pick(quick, 128, 512), Batch: 10},
			optimizers: []remedyOptimizer{{spec: OptimizerSpec{Name: "momentum"}, centre: -10, shift: 3, twoBW: 3},
				{spec: OptimizerSpec{Name: "adam"}, centre: -8, shift: 1, twoBW: 1}}, // Adam's steps are scale-free: averaging S gradients needs less
			methods: remedyMethods, rpdAndLocalSGD: true, tables: []string{"1f1b", "zb-h1"},
			stages: [2][]int{{4, 16}, {4, 8, 16}}, seeds: [2]int{1, 3}, points: [2]int{2, 4},
			above: 2, aboveShifted: 3, budget: [2]float64{5, 20.2}, target: [2]float64{0.6, 0.6}},
	}
}

// remedySpec is one objective on one table: its asynchronous methods
// replaying it and sync timed by it, with each of its optimizers; the
// 1F1B spec also holds RPD and LocalSGD where the objective has them,
// which replay no table of the two.
func remedySpec(o remedyObjective, table string, quick bool) *Spec {
	size := pick(quick, 0, 1)
	s := o.spec
	s.Name = "remedies-" + o.label + "-" + table
	s.Seed, s.Seeds = 1, o.seeds[size]
	s.Stages = o.stages[size]
	s.Budget = []float64{o.budget[size]}
	s.TargetLoss = o.target[size]
	if !quick {
		s.LogPoints = o.logPoints
	}
	s.Cost = DefaultGPU
	// Grid points around each centre: the logistic grids 2^(c-2)..2^(c+1)
	// (two in the quick size), the LM's 2^(c-1)..2^(c+1) (docs/figures.md,
	// remedies).
	points := o.points[size]
	wide := func(centre, above int) Grid {
		lo := centre - points/2
		hi := lo + points - 1
		if !quick {
			hi += above
		}
		return Grid{Pow2: []int{lo, hi}}
	}
	for _, opt := range o.optimizers {
		for _, m := range o.methods {
			steps := wide(opt.centre, o.above)
			if m == "2bw" {
				steps = wide(opt.centre+opt.twoBW, o.aboveShifted)
			}
			s.Methods = append(s.Methods, MethodSpec{Name: m, Family: table, Optimizer: opt.spec, Steps: steps})
		}
		s.Methods = append(s.Methods, MethodSpec{Name: "sync", Family: table, Optimizer: opt.spec, Steps: wide(opt.centre+opt.shift, o.aboveShifted)})
		if table == "1f1b" && o.rpdAndLocalSGD {
			s.Methods = append(s.Methods,
				MethodSpec{Name: "rpd", Deltas: []Delta{{Paper: true}}, Optimizer: opt.spec, Steps: wide(opt.centre, o.above)},
				MethodSpec{Name: "localsgd", LocalSteps: []int{4}, Optimizer: opt.spec, Steps: wide(opt.centre+opt.shift, o.aboveShifted)})
		}
	}
	return &s
}
