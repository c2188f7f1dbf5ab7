// Package sim gives a schedule table time: cost models (unit, explicit
// per-kind costs, and a GPU timing model derived from a model, a GPU and a
// link, with FlashAttention as an option), an event simulator with
// execution policies (the table's order, or readiness ranked by a hint,
// waiting as the plan does), runtime variability, metrics computed from
// the resulting Timeline (time, bubbles, communication waits, activations
// and memory, with the Zero Bubble split of activation memory), the
// all-reduce of replicated parts' gradients, closed forms per family,
// Chrome trace export and Gantt pictures.
package sim
