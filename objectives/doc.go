// Package objectives holds the problems that pipelab's optimizers replay
// schedules on: the random and tridiagonal (Nesterov) quadratics, logistic
// regression with L2 and gradient noise, and a small character language
// model, with their data sets (generated from a seed, or read from files).
// Each cuts its parameters into one block per pipeline stage.
//
// An Objective is all an optimizer needs. Problems that can also compute a
// gradient a stage at a time (Stagewise) or follow their loss through block
// updates (Tracked) let a replay cost what the pipeline itself would, one
// forward and one backward per microbatch, instead of a full gradient per
// block update and a full loss per record. Pipelined problems (the
// character LM) run a microbatch's stages one at a time with their own
// activations, so that a backward may read other weights than its forward
// at the cost of one pass.
// Problems with a held-out set (Validated: the character LM, on the last
// tenth of its corpus) also report a validation loss on data they never
// train on.
//
// Every random draw comes from one of a run's named streams (NewRand with
// StreamData, StreamNoise or StreamSampling), so the data set, the gradient
// noise and RPD's sampling never share draws.
package objectives
