// Package validation checks pipelab's timing model against published
// measurements (ValidateTimingModel, the command "pipelab validate",
// docs/validation.md): the GPU cost model (package cost), calibrated on
// one configuration of the Zero Bubble paper, and the event simulator
// (package sim) predict that paper's per-stage times, throughput and
// memory, the figures of Megatron-LM's SC21 paper a pipeline-only model
// can check, and the activation formulas of the Zero Bubble and DualPipe
// schedules. It sits beside the cost model rather than in it because it
// needs the simulator, which imports package cost.
package validation
