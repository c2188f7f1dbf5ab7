package experiments

// figureDelayProfiles asks what a uniform delay misstates: the per-stage
// delay profiles of PipeDream's asynchronous 1F1B, of 2BW, and of the
// asynchronous replays of interleaved 1F1B, ZB-H1 and ZB-V tables; then
// RPD driven by the paper's uniform δ = ⌊S² − S/2⌋, by uniform delays at
// PipeDream's mean, and by PipeDream's delays replayed stage by stage,
// against PipeDream itself on the random quadratic and on the character LM
// (docs/figures.md, delay-profiles).
var figureDelayProfiles = Figure{
	Name: "delay-profiles",
	Summary: "per-stage delays of PipeDream, 2BW and asynchronous interleaved 1F1B, ZB-H1 and ZB-V; " +
		"RPD at the paper's δ, at PipeDream's mean delay and from its per-stage trace against PipeDream (quadratic, LM)",
	Specs: func(quick bool) []*Spec {
		stages := pick(quick, []int{4, 8}, []int{4, 8, 16})
		profiles := &Spec{Name: "delay-profiles", Measure: DelayProfiles, Stages: stages, TotalMicrobatchesPerStage: 10,
			Families: []string{"pipedream", "interleaved-1f1b", "zb-h1", "zb-v"}}
		twoBW := &Spec{Name: "delay-profiles", Measure: DelayProfiles, Stages: stages, TotalMicrobatchesPerStage: 10,
			Families: []string{"pipedream"}, Methods: []MethodSpec{{Name: "2bw"}}}
		return []*Spec{profiles, twoBW, delayModelSpec("quadratic", quick), delayModelSpec("lm", quick)}
	},
	Seconds: [2]float64{13, 160},
}

// delayModels are the delays RPD runs with in the figure: (a) the paper's
// bound, (b) uniform at PipeDream's mean, (c) PipeDream's per-stage trace.
var delayModels = []Delta{{Paper: true}, {Model: "pipedream-mean"}, {Model: "pipedream-profile"}}

// delayModelSpec is PipeDream and RPD with the three delay models on one
// objective, every method on the same step grid, loss against block
// updates. The quadratic is pd-vs-rpd's; the LM is every LM figure's,
// ShakespeareLM, with its Adam recipe, on the shipped text.
func delayModelSpec(objective string, quick bool) *Spec {
	var s Spec
	var steps Grid
	var opt OptimizerSpec // plain SGD on the quadratic
	switch objective {
	case "quadratic":
		s = Spec{Objectives: []string{"quadratic"}, N: pick(quick, 500, 2000), D: pick(quick, 128, 512),
			Batch: pick(quick, 25, 100), Stages: []int{8}, TotalMicrobatches: []int{pick(quick, 200, 400)}}
		steps = Grid{Pow2: []int{pick(quick, -6, -8), 0}}
		s.Select = PaperSelection
	case "lm":
		lm := ShakespeareLM()
		lm.Apply(&s)
		s.Stages, s.TotalMicrobatches = []int{4}, []int{pick(quick, 100, 400)}
		opt = lm.Optimizer
		// Around the steps asynchronous Adam takes on this model at S = 4
		// (the remedies figure's pipedream and predict, 2^-11..2^-10).
		steps = Grid{Pow2: []int{pick(quick, -10, -11), pick(quick, -9, -8)}}
	}
	s.Name, s.Seed = "delay-profiles-"+objective, 1
	s.Seeds = pick(quick, 1, 3)
	s.Methods = []MethodSpec{{Name: "pipedream", Steps: steps, Optimizer: opt}, {Name: "rpd", Steps: steps, Deltas: delayModels, Optimizer: opt}}
	return &s
}
