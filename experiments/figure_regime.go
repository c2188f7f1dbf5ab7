package experiments

// figureRegime maps where LocalSGD beats PipeDream: the scaling figure's
// setting with the data size n and the noise σ swept (docs/figures.md,
// regime).
var figureRegime = Figure{
	Name: "regime",
	Summary: "where LocalSGD beats PipeDream on logistic regression: the gap of their best-final training losses at the " +
		"scaling figure's budget over n, σ and S, as heatmaps with the paired interval and the seeds that agree",
	// Measured (docs/figures.md, "Wall time"): quick 7.2 CPU-s; full 421
	// CPU-s at three seeds (6048 runs), scaled to five (10080 runs): an
	// estimate, not yet measured.
	Seconds: [2]float64{7.2, 700},
}
