package results

import (
	"cmp"
	"math"

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
