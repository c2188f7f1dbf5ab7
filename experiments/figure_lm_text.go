package experiments

// figureLMText is the lm figure on the shipped Tiny Shakespeare text:
// PipeDream against LocalSGD (H = 1, 2, 4, 8, 16 in the full size) and
// synchronous SGD at equal GPU time, by validation loss (the held-out
// tail of the text). figureLM keeps the Markov corpus, whose floor is
// known.
var figureLMText = Figure{
	Name:    "lm",
	Summary: "PipeDream, LocalSGD and sync training the character-level transformer on Tiny Shakespeare, validation loss against GPU seconds",
	Specs: func(quick bool) []*Spec {
		s := &Spec{Name: "lm-text", Seed: 1, Objectives: []string{"charlm"},
			Batch: pick(quick, 8, 16), Stages: []int{4}, LogEvery: pick(quick, 20, 0),
			// Two thirds of a full run's CPU was its 109 records (a
			// training and a validation loss each): 30 suffice for the
			// curves and time the target to a thirtieth of the budget.
			LogPoints: pick(quick, 0, 30),
			Budget:    []float64{pick(quick, 1.8, 10.7)}, Cost: DefaultGPU,
			TargetLoss: 3.3128, // the text's unigram entropy (docs/charlm.md)
			Methods: []MethodSpec{
				{Name: "pipedream", Steps: Grid{Values: []float64{0.0625}}},
				{Name: "localsgd", LocalSteps: pick(quick, []int{1, 4}, []int{1, 2, 4, 8, 16}),
					Steps: Grid{Values: []float64{0.0625}}},
				{Name: "sync", Steps: Grid{Values: []float64{0.25}}},
			}}
		// The GPU budgets are the Markov figure's (1.8 s and 10.7 s:
		// PipeDream's matched N of 47 and 297 at S = 4); the unit-time
		// variant is left out, equal GPU time is the question.
		return []*Spec{s}
	},
}
