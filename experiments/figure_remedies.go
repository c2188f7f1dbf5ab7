package experiments

// figureRemedies asks which staleness remedy wins in seconds: every
// asynchronous method on the asynchronous replay of 1F1B and ZB-H1 tables,
// against LocalSGD and synchronous SGD, on the character LM (the shipped
// text, validation loss) and on logistic regression, each with momentum
// SGD and with Adam, timed by the GPU model (docs/figures.md, remedies).
var figureRemedies = Figure{
	Name: "remedies",
	Summary: "every staleness remedy, RPD, LocalSGD and sync on 1F1B and ZB-H1 tables, momentum and Adam, " +
		"loss against GPU seconds and time to a target loss (LM on the shipped text, logistic regression)",
	Specs: func(quick bool) []*Spec {
		var out []*Spec
		for _, o := range remedyObjectives(quick) {
			for _, table := range []string{"1f1b", "zb-h1"} {
				out = append(out, remedySpec(o, table, quick))
			}
		}
		return out
	},
	// Quick: 59.5 s of CPU (docs/figures.md, remedies); full: the
	// logistic part's 93 s and the LM part's estimate from
	// BenchmarkRemediesLM's per-run CPU (docs/figures.md, remedies).
	Seconds: [2]float64{60, 3300},
}

// remedyMethods are the asynchronous methods the remedies figure compares:
// every one but ef, which came after the figure and is measured with the
// optimizers it was made for (Muon, Lion) in a figure of its own.
var remedyMethods = []string{"pipedream", "pd-nostash", "2bw", "pipemare", "predict", "dc"}

// remedyObjective is one problem of the remedies figure: its spec fields
// and the centre of each optimizer's step grid (log2 of the step PipeDream
// is known to take, docs/figures.md), from which every method's grid is
// placed.
type remedyObjective struct {
	label          string
	spec           Spec
	momentum, adam int // log2 of the grid centres
	syncShift      int // sync and 2bw average S gradients per update: a larger step
	// above and aboveShifted add grid points above the asynchronous
	// methods' grids and above the shifted grids of sync, 2bw and LocalSGD
	// in the full size, where a best step was the top of its grid
	// (docs/figures.md, remedies).
	above, aboveShifted int
	budgetS, budgetQ    float64
	targetLoss          float64
	// logPoints is the records per run at the full size (0: the default
	// 100); fewer records thin the curves, not the time to target, which
	// stays on the default grid (optim.Settings.TargetLoss).
	logPoints int
}

func remedyObjectives(quick bool) []remedyObjective {
	return []remedyObjective{
		{label: "lm", spec: Spec{Objectives: []string{"charlm"}, Batch: 4, Embed: 16, SeqLen: 16},
			momentum: -7, adam: -7, syncShift: 2, budgetS: 6, budgetQ: 2, targetLoss: 3.7,
			// A record is 16 forward passes, 8.5 microbatches' gradients
			// at S = 16: at 100 records they were 60 % of a run
			// (docs/figures.md, remedies).
			logPoints: 30},
		{label: "logistic", spec: Spec{Objectives: []string{"logistic"}, N: 600, D: pick(quick, 128, 512), Batch: 10},
			momentum: -10, adam: -8, syncShift: 3, above: 2, aboveShifted: 3, budgetS: 20.2, budgetQ: 5, targetLoss: 0.6},
	}
}

// remedySpec is one objective on one table: the six asynchronous methods
// replaying it and sync timed by it, each with momentum and Adam; the 1F1B
// spec also holds RPD and LocalSGD, which replay no table of the two.
func remedySpec(o remedyObjective, table string, quick bool) *Spec {
	s := o.spec
	s.Name = "remedies-" + o.label + "-" + table
	s.Seed, s.Seeds = 1, pick(quick, 1, 3)
	s.Stages = pick(quick, []int{4, 16}, []int{4, 8, 16})
	if quick && o.label == "lm" {
		// The LM's S = 16 runs cost a minute each on a loaded core.
		s.Stages = []int{4}
	}
	s.Budget = []float64{pick(quick, o.budgetQ, o.budgetS)}
	s.TargetLoss = o.targetLoss
	if !quick {
		s.LogPoints = o.logPoints
	}
	s.Cost = DefaultGPU
	// Four steps around each centre, 2^(c-2)..2^(c+1); two in the quick
	// size. (The LM had three, 2^(c-1)..2^(c+1), while its runs cost
	// twice what they do now; 63 of its 96 selections sat at an edge, 49
	// of them at the bottom: docs/figures.md, remedies.)
	points := pick(quick, 2, 4)
	grid := func(centre int) Grid {
		lo := centre - points/2
		return Grid{Pow2: []int{lo, lo + points - 1}}
	}
	wide := func(centre, above int) Grid {
		g := grid(centre)
		if !quick {
			g.Pow2[1] += above
		}
		return g
	}
	for _, opt := range []struct {
		spec   OptimizerSpec
		centre int
	}{{OptimizerSpec{Name: "momentum"}, o.momentum}, {OptimizerSpec{Name: "adam"}, o.adam}} {
		shift := o.syncShift
		if opt.spec.Name == "adam" {
			shift = 1 // Adam's steps are scale-free: averaging S gradients needs less
		}
		for _, m := range remedyMethods {
			steps := wide(opt.centre, o.above)
			if m == "2bw" {
				steps = wide(opt.centre+shift, o.aboveShifted)
			}
			s.Methods = append(s.Methods, MethodSpec{Name: m, Family: table, Optimizer: opt.spec, Steps: steps})
		}
		s.Methods = append(s.Methods, MethodSpec{Name: "sync", Family: table, Optimizer: opt.spec, Steps: wide(opt.centre+shift, o.aboveShifted)})
		if table == "1f1b" {
			s.Methods = append(s.Methods,
				MethodSpec{Name: "rpd", Deltas: []Delta{{Paper: true}}, Optimizer: opt.spec, Steps: wide(opt.centre, o.above)},
				MethodSpec{Name: "localsgd", LocalSteps: []int{4}, Optimizer: opt.spec, Steps: wide(opt.centre+shift, o.aboveShifted)})
		}
	}
	return &s
}
