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
//
// The optional columns hold settings that apply to some rows only (RPD's
// δ, LocalSGD's replicas, a GPU preset): null in the file where the
// setting does not apply, so that 0 stays a real setting (RPD's δ = 0). In
// Go the value of a setting that does not apply is 0 (or ""), and a null
// reads back as that.

// NotReached is the count a nullable count column holds for a null.
const NotReached = -1

// nullCol ties a field of type T to a column that is null where isNull
// says so, and reads a null back as missing. Builder and Array are the
// Arrow type's builder and array; value turns an array's value into T (a
// string is cloned, since it may alias a buffer released after reading).
func nullCol[R any, T cmp.Ordered, Builder interface{ Append(T) }, Array arrow.Array](
	name string, typ arrow.DataType, f func(*R) *T, isNull func(*R) bool, missing T, value func(Array, int) T) column[R] {
	return column[R]{
		name:     name,
		typ:      typ,
		nullable: true,
		put: func(b array.Builder, r *R) {
			if isNull(r) {
				b.AppendNull()
			} else {
				b.(Builder).Append(*f(r))
			}
		},
		get: func(a arrow.Array, i int, r *R) {
			if a.IsNull(i) {
				*f(r) = missing
			} else {
				*f(r) = value(a.(Array), i)
			}
		},
		compare: func(x, y *R) int { return cmp.Compare(*f(x), *f(y)) },
	}
}

func float64Value(a *array.Float64, i int) float64 { return a.Value(i) }
func int64Value(a *array.Int64, i int) int64       { return a.Value(i) }
func int32Value(a *array.Int32, i int) int32       { return a.Value(i) }
func stringValue(a *array.String, i int) string    { return strings.Clone(a.Value(i)) }

// nullableFloat64Col is null where the value is NaN.
func nullableFloat64Col[R any](name string, f func(*R) *float64) column[R] {
	return nullCol[R, float64, *array.Float64Builder](name, arrow.PrimitiveTypes.Float64, f,
		func(r *R) bool { return math.IsNaN(*f(r)) }, math.NaN(), float64Value)
}

// nullableInt64Col is null where the count is NotReached.
func nullableInt64Col[R any](name string, f func(*R) *int64) column[R] {
	return nullCol[R, int64, *array.Int64Builder](name, arrow.PrimitiveTypes.Int64, f,
		func(r *R) bool { return *f(r) == NotReached }, NotReached, int64Value)
}

// unmeasuredInt64Col is null where the quantity was not measured, which
// Go holds as 0: a quantity that is never 0 where it is measured (a
// rank's peak memory holds its weights), so that 0 and null are one.
func unmeasuredInt64Col[R any](name string, f func(*R) *int64) column[R] {
	return nullCol[R, int64, *array.Int64Builder](name, arrow.PrimitiveTypes.Int64, f,
		func(r *R) bool { return *f(r) == 0 }, 0, int64Value)
}

// optionalInt32Col is null where the setting does not apply to the row.
func optionalInt32Col[R any](name string, f func(*R) *int32, applies func(*R) bool) column[R] {
	return nullCol[R, int32, *array.Int32Builder](name, arrow.PrimitiveTypes.Int32, f,
		func(r *R) bool { return !applies(r) }, 0, int32Value)
}

// optionalFloat64Col is null where the value is 0 (no time budget).
func optionalFloat64Col[R any](name string, f func(*R) *float64) column[R] {
	return nullCol[R, float64, *array.Float64Builder](name, arrow.PrimitiveTypes.Float64, f,
		func(r *R) bool { return *f(r) == 0 }, 0, float64Value)
}

// optionalStringCol is null where the value is "".
func optionalStringCol[R any](name string, f func(*R) *string) column[R] {
	return nullCol[R, string, *array.StringBuilder](name, arrow.BinaryTypes.String, f,
		func(r *R) bool { return *f(r) == "" }, "", stringValue)
}
