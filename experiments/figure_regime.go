package experiments

// Regime map axes: the data sizes n and noise levels σ of the full
// figure, at d = 512, and its stage counts.
var (
	regimeSizes  = []int{50, 100, 200, 400, 600, 1000}
	regimeNoises = []float64{0, 0.25, 0.5, 1}
	regimeStages = []int{2, 8, 32, 128}
)

var figureRegime = Figure{
	Name: "regime",
	Summary: "where LocalSGD beats PipeDream on logistic regression: the gap of their best-final losses at the " +
		"scaling figure's budget over n, σ and S, as heatmaps with the seed spread",
	Specs: func(quick bool) []*Spec {
		// The scaling figure's setting (docs/reference.md §1.7: batch 10,
		// budget 3180 steps, H = 5, R = S, the paper's grids) with n and σ
		// swept; three seeds, paired by replicate in each cell. The quick
		// size keeps two seeds, so that the spread still shows, on a
		// smaller problem, budget and grid.
		sizes := pick(quick, []int{50, 200, 1000}, regimeSizes)
		var specs []*Spec
		for _, n := range sizes {
			specs = append(specs, &Spec{Name: "regime", Seed: 1, Select: PaperSelection, Seeds: pick(quick, 2, 3), Objectives: []string{"logistic"},
				N: n, D: pick(quick, 128, 512), Batch: 10,
				Noise:  pick(quick, []float64{0, 0.5}, regimeNoises),
				Stages: pick(quick, []int{2, 8}, regimeStages),
				Budget: []float64{pick(quick, 800.0, 3180)},
				Methods: []MethodSpec{
					{Name: "pipedream", Steps: Grid{Pow2: pick(quick, []int{-10, -3}, []int{-12, -3})}},
					{Name: "localsgd", LocalSteps: []int{5}, Steps: Grid{Pow2: pick(quick, []int{-6, 2}, []int{-8, 2})}},
				}})
		}
		// No GPU variant: gpt-1.3b's 26 layers stop at S = 16, short of
		// the map's S = 32 and 128.
		return specs
	},
}
