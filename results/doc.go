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
package results
