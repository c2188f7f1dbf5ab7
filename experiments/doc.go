// Package experiments runs pipelab's experiments: a YAML spec names
// objectives, methods, stage counts, step-size grids, seeds and a cost
// model; Expand turns it into runs with stable ids (a hash of each run's
// canonical parameters) and seeds derived from the spec's seed and those
// parameters, never from the order of runs; a Runner executes them in
// parallel, records each finished run durably, stamped with the build that
// computed it, so an interrupted sweep resumes without repeating or
// duplicating runs (and runs again what another build recorded), and
// gathers the records into Parquet tables (package results). Sweeps split into shards (Shard)
// for Slurm array jobs or Kubernetes indexed Jobs; Merge joins the shards'
// directories into one data set.
//
// Presets reproduce the figures of the PipeDream convergence paper and the
// tabular-schedule comparison (Figures), each in a full and a quick size.
package experiments
