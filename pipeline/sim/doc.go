// Package sim gives a schedule table time: an event simulator driven by a
// cost.Model, with execution policies (the table's order, or readiness
// ranked by a hint, waiting as the plan does), runtime variability,
// metrics computed from the resulting Timeline (time, bubbles,
// communication waits, activations and memory, with the Zero Bubble split
// of activation memory under a cost.Memory), the all-reduce of replicated
// parts' gradients as events, closed forms per family, the three-level
// comparison of a family (Compare: closed form, PyTorch's lockstep check,
// simulation) and Chrome trace export. Pictures are drawn by package results, which alone draws.
package sim
