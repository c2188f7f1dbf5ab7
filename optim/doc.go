// Package optim replays pipeline schedules with real optimizer arithmetic
// and measures what their weight staleness does to convergence.
//
// A Method says which weights each forward and backward reads and when
// updates land; an Optimizer (SGD, Momentum, Nesterov, Adam, AdamW, with
// torch.optim's formulas; Lion, the authors'; Muon, Newton-Schulz
// orthogonalised momentum on the hidden-layer matrices an objective
// declares (objectives.Matrices) and AdamW elsewhere; with a constant or
// cosine learning rate and a warm-up) says what an update does to a block. Each stage owns its optimizer state
// and step counter, and every method works with every optimizer
// (docs/methods.md).
//
// PipeDream and its remedies (PipeDreamNoStash, TwoBW, PipeMare, Predict,
// DelayCompensation, ErrorFeedback), synchronous SGD (Sync) and LocalSGD are replays of a
// sim.Timeline, generated or imported, split backwards (I, W) included: a
// forward reads (and stashes) its stage's block, the weight-gradient
// backward computes the block gradient, and updates land when the method
// says (docs/reference.md §1.2, §1.5, §4). Randomized PipeDream (RPD, §1.4)
// samples its delays from a pluggable DelayModel instead: Uniform as in the
// paper, or a DelayTable of PipeDream's exact delays (Delays) or of a
// recorded trace (ReadDelayTrace), or PipeDream's measured delays as a
// uniform law at their mean (UniformAtMean) or stage by stage
// (StageTrace). Run takes an objective, a Method and
// Settings and returns a Result, with the time to a target loss, the loss
// at a time budget and divergence (a loss not finite or above
// DivergenceFactor times the initial one); it is a pure function of its
// arguments and the seed.
//
// The package also measures PipeDream's delays (Delays) and the versions
// 2BW's forwards read (VersionAges), matches methods at equal simulated
// time (MatchBudget) and chooses step sizes from a grid (BestFinal,
// Stable).
package optim
