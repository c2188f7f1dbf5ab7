// Package optim replays pipeline schedules with real optimizer arithmetic
// and measures what their weight staleness does to convergence.
//
// PipeDream, synchronous SGD and LocalSGD are replays of a sim.Timeline:
// a forward reads (and stashes) the current block of its stage, a backward
// computes the block gradient at the stashed point, and updates land when
// the schedule's update rule says (docs/reference.md §1.2, §1.5). Randomized
// PipeDream (RPD, §1.4) samples its delays from a pluggable DelayModel
// instead: Uniform as in the paper, or a DelayTable of PipeDream's exact
// delays (Delays) or of a recorded trace (ReadDelayTrace). Run takes an objective, a Method and Settings and returns a
// Result; it is a pure function of its arguments and the seed.
//
// The package also measures PipeDream's delays (Delays), matches methods at
// equal simulated time (MatchBudget) and chooses step sizes from a grid
// (BestFinal, Stable).
package optim
