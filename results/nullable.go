package results

import (
	"cmp"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The nullable columns hold values a run may not have: a target never
// reached, a loss not measured. In Go the missing value is NaN for a
// float and -1 for a count; in the file it is null.

// NotReached is the count a nullable count column holds for a null.
const NotReached = -1

func nullableFloat64Col[R any](name string, f func(*R) *float64) column[R] {
	return column[R]{
		name:     name,
		typ:      arrow.PrimitiveTypes.Float64,
		nullable: true,
		put: func(b array.Builder, r *R) {
			if v := *f(r); math.IsNaN(v) {
				b.AppendNull()
			} else {
				b.(*array.Float64Builder).Append(v)
			}
		},
		get: func(a arrow.Array, i int, r *R) {
			if a.IsNull(i) {
				*f(r) = math.NaN()
			} else {
				*f(r) = a.(*array.Float64).Value(i)
			}
		},
		compare: func(x, y *R) int { return cmp.Compare(*f(x), *f(y)) },
	}
}

func nullableInt64Col[R any](name string, f func(*R) *int64) column[R] {
	return column[R]{
		name:     name,
		typ:      arrow.PrimitiveTypes.Int64,
		nullable: true,
		put: func(b array.Builder, r *R) {
			if v := *f(r); v == NotReached {
				b.AppendNull()
			} else {
				b.(*array.Int64Builder).Append(v)
			}
		},
		get: func(a arrow.Array, i int, r *R) {
			if a.IsNull(i) {
				*f(r) = NotReached
			} else {
				*f(r) = a.(*array.Int64).Value(i)
			}
		},
		compare: func(x, y *R) int { return cmp.Compare(*f(x), *f(y)) },
	}
}

// The optional columns hold settings that apply to some rows only (RPD's
// δ, LocalSGD's replicas, a GPU preset): null in the file where applies
// is false, so that 0 stays a real setting (RPD's δ = 0). In Go the
// value of a setting that does not apply is 0 (or ""), and a null reads
// back as that.

func optionalInt32Col[R any](name string, f func(*R) *int32, applies func(*R) bool) column[R] {
	return column[R]{
		name:     name,
		typ:      arrow.PrimitiveTypes.Int32,
		nullable: true,
		put: func(b array.Builder, r *R) {
			if applies(r) {
				b.(*array.Int32Builder).Append(*f(r))
			} else {
				b.AppendNull()
			}
		},
		get: func(a arrow.Array, i int, r *R) {
			if a.IsNull(i) {
				*f(r) = 0
			} else {
				*f(r) = a.(*array.Int32).Value(i)
			}
		},
		compare: func(x, y *R) int { return cmp.Compare(*f(x), *f(y)) },
	}
}

// optionalFloat64Col is null where the value is 0 (no time budget).
func optionalFloat64Col[R any](name string, f func(*R) *float64) column[R] {
	return column[R]{
		name:     name,
		typ:      arrow.PrimitiveTypes.Float64,
		nullable: true,
		put: func(b array.Builder, r *R) {
			if v := *f(r); v == 0 {
				b.AppendNull()
			} else {
				b.(*array.Float64Builder).Append(v)
			}
		},
		get: func(a arrow.Array, i int, r *R) {
			if a.IsNull(i) {
				*f(r) = 0
			} else {
				*f(r) = a.(*array.Float64).Value(i)
			}
		},
		compare: func(x, y *R) int { return cmp.Compare(*f(x), *f(y)) },
	}
}

// optionalStringCol is null where the value is "".
func optionalStringCol[R any](name string, f func(*R) *string) column[R] {
	return column[R]{
		name:     name,
		typ:      arrow.BinaryTypes.String,
		nullable: true,
		put: func(b array.Builder, r *R) {
			if v := *f(r); v == "" {
				b.AppendNull()
			} else {
				b.(*array.StringBuilder).Append(v)
			}
		},
		get: func(a arrow.Array, i int, r *R) {
			if a.IsNull(i) {
				*f(r) = ""
			} else {
				*f(r) = strings.Clone(a.(*array.String).Value(i))
			}
		},
		compare: func(x, y *R) int { return cmp.Compare(*f(x), *f(y)) },
	}
}
