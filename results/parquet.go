package results

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pipelab/pipelab/internal/atomicfile"
)

// createdBy is written in every file's footer in place of the library's
// default, so files do not change when arrow-go is upgraded.
const createdBy = "pipelab results"

// rowGroupRows bounds the rows of one Parquet row group.
const rowGroupRows = 1 << 20

// writeTable sorts a copy of rows by t's key and writes them to path as
// Parquet with zstd compression, atomically.
func writeTable[R any](path string, t *table[R], rows []R) error {
	sorted := sortRows(t, rows)
	return writeAtomic(path, func(f *os.File) error {
		if err := encode(f, t, sorted); err != nil {
			return fmt.Errorf("results: %s: writing %s table: %w", path, t.kind, err)
		}
		return nil
	})
}

// sortRows returns rows ordered by t's columns, ties kept in input order;
// rows already in order are returned as they are (the writers only read
// them).
// It sorts positions rather than rows so the comparison reads the rows in
// place instead of copying them to the heap.
func sortRows[R any](t *table[R], rows []R) []R {
	inOrder := true
	for i := 1; i < len(rows) && inOrder; i++ {
		inOrder = t.compare(&rows[i-1], &rows[i]) <= 0
	}
	if inOrder {
		return rows
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int {
		return cmp.Or(t.compare(&rows[i], &rows[j]), cmp.Compare(i, j))
	})
	sorted := make([]R, len(rows))
	for i, o := range order {
		sorted[i] = rows[o]
	}
	return sorted
}

// encode writes rows to f as one Parquet file.
func encode[R any](f *os.File, t *table[R], rows []R) error {
	schema := t.schema()
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCreatedBy(createdBy),
		parquet.WithMaxRowGroupLength(rowGroupRows),
	)
	// The writer closes an io.Closer it is given; f must stay open for
	// the fsync and the rename, so it gets a plain io.Writer.
	w, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{f}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	for start := 0; start < len(rows); start += rowGroupRows {
		rec := record(schema, t, rows[start:min(start+rowGroupRows, len(rows))])
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

// record builds one Arrow record batch of rows.
func record[R any](schema *arrow.Schema, t *table[R], rows []R) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Reserve(len(rows))
	for i, c := range t.columns {
		fb := b.Field(i)
		for r := range rows {
			c.put(fb, &rows[r])
		}
	}
	return b.NewRecordBatch()
}

// writeAtomic writes a file at path through write, whole or not at all
// (atomicfile.Write: a tracked temporary file, synced and renamed); on any
// error path is left as it was.
func writeAtomic(path string, write func(*os.File) error) error {
	if err := atomicfile.Write(path, write); err != nil {
		if strings.HasPrefix(err.Error(), "results: ") {
			return err
		}
		return fmt.Errorf("results: %s: %w", path, err)
	}
	return nil
}

// readTable reads the Parquet file at path into rows of t, checking that
// its columns are t's columns with t's types.
func readTable[R any](path string, t *table[R]) ([]R, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	tbl, err := decodeTable[R](f)
	if err != nil {
		return nil, fmt.Errorf("results: %s: reading %s table: %w", path, t.kind, err)
	}
	defer tbl.Release()
	if err := checkSchema(tbl.Schema(), t); err != nil {
		return nil, fmt.Errorf("results: %s: not a %s table: %w", path, t.kind, err)
	}
	rows := make([]R, 0, tbl.NumRows())
	tr := array.NewTableReader(tbl, rowGroupRows)
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		base := len(rows)
		rows = rows[:base+int(rec.NumRows())]
		for i, c := range t.columns {
			if i >= int(rec.NumCols()) {
				break // appended columns the table lacks read as zero
			}
			col := rec.Column(i)
			if col.NullN() > 0 && !c.nullable {
				return nil, fmt.Errorf("results: %s: column %q has null values", path, c.name)
			}
			for r := range int(rec.NumRows()) {
				c.get(col, r, &rows[base+r])
			}
		}
	}
	if err := tr.Err(); err != nil {
		return nil, fmt.Errorf("results: %s: reading %s table: %w", path, t.kind, err)
	}
	return rows, nil
}

// decodeTable reads the Parquet file f into an Arrow table once its
// footer passes checkLayout. A panic inside Arrow's decoder (a damaged
// page its checks miss) is returned as an error: the file is bad input,
// never a crash of the command reading it.
func decodeTable[R any](f *os.File) (tbl arrow.Table, err error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			tbl, err = nil, fmt.Errorf("damaged Parquet data: %v", r)
		}
	}()
	rd, err := file.NewParquetReader(f, file.WithReadProps(parquet.NewReaderProperties(memory.DefaultAllocator)))
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	if err := checkLayout[R](rd, st.Size()); err != nil {
		return nil, err
	}
	fr, err := pqarrow.NewFileReader(rd, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	return fr.ReadTable(context.Background())
}

// allAdded reports whether every column of cols was appended (column.added).
func allAdded[R any](cols []column[R]) bool {
	for _, c := range cols {
		if !c.added {
			return false
		}
	}
	return true
}

// checkSchema reports the first column of got that differs from t's, or
// the first column one has and the other lacks.
func checkSchema[R any](got *arrow.Schema, t *table[R]) error {
	for i, c := range t.columns {
		if i >= got.NumFields() && c.added && allAdded(t.columns[i:]) {
			return nil // a table from before the appended columns
		}
		if i >= got.NumFields() {
			return fmt.Errorf("column %d (%s) is missing", i, c.name)
		}
		f := got.Field(i)
		if f.Name != c.name || !arrow.TypeEqual(f.Type, c.typ) {
			return fmt.Errorf("column %d is %s %s, want %s %s", i, f.Name, f.Type, c.name, c.typ)
		}
	}
	if got.NumFields() > len(t.columns) {
		return fmt.Errorf("unexpected column %d (%s)", len(t.columns), got.Field(len(t.columns)).Name)
	}
	return nil
}
