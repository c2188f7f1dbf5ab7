// Package objectives holds the problems that pipelab's optimizers replay
// schedules on: the random and tridiagonal (Nesterov) quadratics, logistic
// regression with L2 and gradient noise, and a small character language
// model, with their data sets (generated from a seed, or read from files).
// Each cuts its parameters into one block per pipeline stage.
package objectives
