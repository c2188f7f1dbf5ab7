// Package experiments says what pipelab's experiments are: a YAML spec
// names objectives, methods, stage counts, step-size grids, seeds and a
// cost model; Expand turns it into runs with stable ids (a hash of each
// run's canonical parameters) and seeds derived from the spec's seed and
// those parameters, never from the order of runs; Execute computes one run
// (Train replays a convergence run) into the rows of the Parquet tables
// (package results), on timelines cached by a Timelines that a sweep's
// runner owns; WriteDataset selects the step sizes and writes a sweep's
// tables, and NextRound says which runs grow a step-size grid whose
// choice is at its edge. Package sweep runs the runs: in parallel,
// resumably, sharded and merged.
//
// Presets reproduce the figures of the PipeDream convergence paper and the
// tabular-schedule comparison (Figures), each in a full and a quick size,
// their specs YAML files embedded from figures/ (Figure.Presets);
// sweep.Reproduce runs them.
package experiments
