package experiments

// figureRegime maps where LocalSGD beats PipeDream: the scaling figure's
// setting with the data size n and the noise σ swept (docs/figures.md,
// regime).
var figureRegime = Figure{
	Name: "regime",
	Summary: "where LocalSGD beats PipeDream on logistic regression: the gap of their best-final losses at the " +
		"scaling figure's budget over n, σ and S, as heatmaps with the seed spread",
}
