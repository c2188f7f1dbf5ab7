// Package sweep runs the runs of package experiments: a Runner computes
// them in a Pool of slots (the one way runs are computed, whether one
// sweep or Reproduce's figures side by side share it), longest estimated
// runs first, with the timelines they replay cached for as long as a
// pending run needs them (experiments.Timelines, a field of the runner);
// it records each finished run durably in DIR/runs/ID.gob, stamped with
// the build that computed it, so that an interrupted sweep resumes without
// repeating or duplicating runs (and runs again what another build
// recorded); a lock (LockFile) keeps a second sweep or merge out of the
// folder; and the records are gathered into the Parquet tables
// (experiments.WriteDataset). Sweeps split into shards (Shard) for Slurm
// array jobs or Kubernetes indexed Jobs, each folder saying which data set
// and shard it holds (Dataset); Merge joins the shards' folders into one
// data set. Reproduce runs the paper's figures (experiments.Figures) into a
// folder each and draws their plots, the command "pipelab reproduce"
// callable from Go.
//
// It sits above package experiments, which says what a run is and how to
// compute, stamp, select and write it, and below the command line, which
// adds flags and printing.
package sweep
