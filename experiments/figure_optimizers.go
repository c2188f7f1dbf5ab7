package experiments

// figureOptimizersUnderDelay asks which per-stage optimizer suffers least
// from a delayed pipeline, on the character LM (stalenessLM): the
// validation loss of PipeDream, of PipeDream-2BW and of 2BW with the
// one-step-delay paper's error feedback (method ef: ef is a method, 2BW
// plus the correction, not a modifier of any method, so "with error
// feedback" is ef against 2bw), each minus synchronous SGD's at the same
// microbatches, for momentum SGD, AdamW, Muon and Lion, each method and
// optimizer at its own best step (docs/figures.md,
// optimizers-under-delay).
var figureOptimizersUnderDelay = Figure{
	Name: "optimizers-under-delay",
	Summary: "validation gap of PipeDream, 2BW and 2BW with error feedback (ef) against sync on the LM " +
		"for momentum SGD, AdamW, Muon and Lion, against S",
	Specs: func(quick bool) []*Spec {
		s := stalenessLM()
		s.Name = "optimizers-under-delay"
		s.Seed, s.Seeds = 1, pick(quick, 1, 2)
		s.Stages = pick(quick, []int{4, 8}, []int{4, 8, 16})
		s.TotalMicrobatches = []int{pick(quick, 200, 400)} // 2BW and ef: K/S updates
		s.LogPoints = 10
		for _, o := range delayOptimizers {
			// sync, 2bw and ef average S microbatches per update: one
			// grid point further up (the remedies figure's shift).
			lo, hi := o.centre-pick(quick, 1, 2), o.centre+pick(quick, 1, 2)
			for _, m := range []string{"pipedream", "2bw", "ef", "sync"} {
				shift := 0
				if m != "pipedream" {
					shift = o.shift
				}
				s.Methods = append(s.Methods, MethodSpec{Name: m, Optimizer: OptimizerSpec{Name: o.name},
					Steps: Grid{Pow2: []int{lo + shift, hi + shift}}})
			}
		}
		return []*Spec{&s}
	},
	// Measured (docs/figures.md, optimizers-under-delay): quick 14 CPU-s;
	// full about 215 of the 362 CPU-s it and staleness-law took together.
	Seconds: [2]float64{14, 215},
}

// delayOptimizer is one optimizer of the figure and the centre of its
// step grid (log2), with the shift of the averaging methods' grids.
type delayOptimizer struct {
	name          string
	centre, shift int
}

// delayOptimizers: momentum SGD at the remedies LM's centre 2^-7 (sync
// +2); AdamW at 2^-7 (+1); Muon at 2^-7 (+1); Lion, whose sign update
// moves every coordinate by the full step, 2^-10 (+1), as its authors
// take a step 3-10 times AdamW's smaller.
var delayOptimizers = []delayOptimizer{
	{"momentum", -7, 2}, {"adamw", -7, 1}, {"muon", -7, 1}, {"lion", -10, 1},
}
