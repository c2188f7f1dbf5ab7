// Package results holds pipelab's result tables: one Arrow schema per kind
// of result (runs, loss curves, delay statistics and raw delay rows,
// timeline events, schedule metrics), Go row structs for each, Parquet
// writers and readers, and the plots drawn from those tables.
//
// Files are written as Parquet with zstd compression, atomically (a
// temporary file in the same directory, fsynced, then renamed) and
// deterministically: each writer sorts its rows by all columns in schema
// order (the leading columns are the key), so the same rows, in any order,
// give byte-identical files. Callers need not sort.
//
// Plots take row slices as read back from the files (ReadDir loads a whole
// directory), never optimizer state, so every figure can be redrawn from the
// tables alone. docs/results.md documents every column.
//
// Comparisons go through one significance rule, PairedDifferences: the
// per-seed differences of two methods, paired by seed, their mean, a 95 %
// Student t interval and the seeds that agree in sign; a comparison holds
// from MinSeeds seeds when the interval excludes zero. Claims applies it to
// every comparison a runs table holds (the claims table, ClaimsFile), Gaps
// to the staleness gaps, and the regime map to its cells.
package results
