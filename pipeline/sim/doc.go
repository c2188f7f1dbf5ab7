// Package sim gives a schedule table time: cost models (unit, explicit
// per-kind costs, and a GPU timing model derived from a model, a GPU and a
// link), an event simulator with execution policies, runtime variability,
// metrics computed from the resulting Timeline, and Chrome trace export.
package sim
