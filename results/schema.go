package results

import (
	"cmp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// File names of the tables inside a results directory.
const (
	RunsFile      = "runs.parquet"
	CurvesFile    = "curves.parquet"
	DelaysFile    = "delays.parquet"
	DelayRowsFile = "delay_rows.parquet"
	TimelineFile  = "timeline.parquet"
	SchedulesFile = "schedules.parquet"
)

// Cost models a run or a schedule was priced with.
const (
	CostUnit = "unit" // every compute action takes one step
	CostGPU  = "gpu"  // the communication-aware GPU timing model, seconds
)

// column ties one Go struct field of row type R to one Arrow column.
type column[R any] struct {
	name    string
	typ     arrow.DataType
	put     func(b array.Builder, r *R)
	get     func(a arrow.Array, i int, r *R)
	compare func(x, y *R) int
	// nullable columns hold nulls (a value not measured; nullable.go).
	nullable bool
	// added marks a column appended after tables were written without
	// it: a table that ends before it reads it as its zero (null).
	added bool
}

// appended returns c, which tables written before it existed lack at
// their end; readers take those rows' value as the zero.
func appended[R any](c column[R]) column[R] {
	c.added = true
	return c
}

// table is the schema of one kind of result: its name (for errors and file
// metadata) and its columns in schema order. Rows are sorted by all columns
// in that order, so the leading columns are the table's key.
type table[R any] struct {
	kind    string
	columns []column[R]
}

// schema returns the Arrow schema of t: every column non-nullable but
// those nullable.go makes, and the kind recorded in the schema metadata.
func (t *table[R]) schema() *arrow.Schema {
	fields := make([]arrow.Field, len(t.columns))
	for i, c := range t.columns {
		fields[i] = arrow.Field{Name: c.name, Type: c.typ, Nullable: c.nullable}
	}
	md := arrow.NewMetadata([]string{"pipelab.kind"}, []string{t.kind})
	return arrow.NewSchema(fields, &md)
}

// compare orders rows by every column in schema order.
func (t *table[R]) compare(x, y *R) int {
	for _, c := range t.columns {
		if d := c.compare(x, y); d != 0 {
			return d
		}
	}
	return 0
}

// primitiveCol ties a field of a fixed-width Arrow type to a column;
// Builder and Array are that type's builder and array, whose Append and
// Value carry T.
func primitiveCol[R any, T cmp.Ordered, Builder interface{ Append(T) }, Array interface{ Value(int) T }](
	name string, typ arrow.DataType, f func(*R) *T) column[R] {
	return column[R]{
		name:    name,
		typ:     typ,
		put:     func(b array.Builder, r *R) { b.(Builder).Append(*f(r)) },
		get:     func(a arrow.Array, i int, r *R) { *f(r) = a.(Array).Value(i) },
		compare: func(x, y *R) int { return cmp.Compare(*f(x), *f(y)) },
	}
}

func int32Col[R any](name string, f func(*R) *int32) column[R] {
	return primitiveCol[R, int32, *array.Int32Builder, *array.Int32](name, arrow.PrimitiveTypes.Int32, f)
}

func int64Col[R any](name string, f func(*R) *int64) column[R] {
	return primitiveCol[R, int64, *array.Int64Builder, *array.Int64](name, arrow.PrimitiveTypes.Int64, f)
}

func uint64Col[R any](name string, f func(*R) *uint64) column[R] {
	return primitiveCol[R, uint64, *array.Uint64Builder, *array.Uint64](name, arrow.PrimitiveTypes.Uint64, f)
}

func float64Col[R any](name string, f func(*R) *float64) column[R] {
	return primitiveCol[R, float64, *array.Float64Builder, *array.Float64](name, arrow.PrimitiveTypes.Float64, f)
}

func stringCol[R any](name string, f func(*R) *string) column[R] {
	return column[R]{
		name: name,
		typ:  arrow.BinaryTypes.String,
		put:  func(b array.Builder, r *R) { b.(*array.StringBuilder).Append(*f(r)) },
		// Clone: the Arrow value may alias a buffer released after reading.
		get:     func(a arrow.Array, i int, r *R) { *f(r) = strings.Clone(a.(*array.String).Value(i)) },
		compare: func(x, y *R) int { return cmp.Compare(*f(x), *f(y)) },
	}
}

func boolCol[R any](name string, f func(*R) *bool) column[R] {
	return column[R]{
		name:    name,
		typ:     arrow.FixedWidthTypes.Boolean,
		put:     func(b array.Builder, r *R) { b.(*array.BooleanBuilder).Append(*f(r)) },
		get:     func(a arrow.Array, i int, r *R) { *f(r) = a.(*array.Boolean).Value(i) },
		compare: func(x, y *R) int { return cmpBool(*f(x), *f(y)) },
	}
}

func cmpBool(x, y bool) int {
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}
