// Package validation checks pipelab's timing model against published
// measurements (ValidateTimingModel, the command "pipelab validate",
// docs/validation.md): the GPU cost model (package cost), calibrated on
// one configuration of the Zero Bubble paper, and the event simulator
// (package sim) predict that paper's per-stage times, throughput and
// memory; the cluster model (tensor, pipeline and data parallelism with
// full recomputation), calibrated on the rows of Megatron-LM's SC21
// Table 1 without pipeline parallelism, predicts its pipelined rows and
// the iteration times of Korthikanti et al.'s Table 5 (full against
// selective recomputation with sequence parallelism); and the activation
// formulas of the Zero Bubble and DualPipe schedules hold. Each table's
// out-of-sample error, and that over every timing row, is summarised
// (summary.go). It sits beside the cost model rather than in it because it
// needs the simulator, which imports package cost.
package validation
