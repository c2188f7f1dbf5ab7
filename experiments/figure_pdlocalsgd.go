package experiments

// figurePDvsLocalSGD is pd-vs-localsgd as the PipeDream paper's notebook
// runs it: every method gets the same N microbatches, and every run ends
// at the shortest timeline, PipeDream's (docs/reference.md §1.2, §1.5:
// with N = 600 and S = 16 PipeDream takes 2N + 2S - 2 = 1230 steps,
// LocalSGD 1770, 1440 and 1260 for H = 2, 5 and 30). The earlier form of
// the figure, at the scaling figure's budget of 3180 steps, is
// figurePDvsLocalSGDBudget.
var figurePDvsLocalSGD = Figure{
	Name: "pd-vs-localsgd",
	Summary: "PipeDream and LocalSGD (H = 2, 5, 30) on the tridiagonal quadratic with S = 16, N = 600 microbatches each, " +
		"cut at the shortest timeline (the paper's notebook), loss against simulated time",
}
