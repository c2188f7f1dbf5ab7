package results

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// sqlReserved holds DuckDB's reserved keywords (SELECT keyword_name FROM
// duckdb_keywords() WHERE keyword_category = 'reserved') and the words the
// issue that renamed the columns names, reserved in standard SQL or in
// other engines a table is read with: a column named one of them needs
// quoting in a query.
var sqlReserved = strings.Fields(`all analyse analyze and any array as asc asymmetric both case cast
check collate column constraint create default deferrable desc describe distinct do else end except
false fetch for foreign from grant group having in initially intersect into lateral leading limit
offset on only or order pivot pivot_longer pivot_wider placing primary qualify references returning
select show some summarize symmetric table then to trailing true union unique unpivot using
variadic when where window with
index rows update time start`)

// No table has a column whose name is an SQL reserved word, nor two
// columns of one name.
func TestColumnNamesNotReserved(t *testing.T) {
	reserved := map[string]bool{}
	for _, w := range sqlReserved {
		reserved[w] = true
	}
	for _, s := range []*arrow.Schema{RunSchema(), CurveSchema(), DelaySchema(), DelayRowSchema(), TimelineSchema(), ScheduleSchema()} {
		kind, _ := s.Metadata().GetValue("pipelab.kind")
		seen := map[string]bool{}
		for _, f := range s.Fields() {
			if reserved[f.Name] {
				t.Errorf("%s: column %q is an SQL reserved word", kind, f.Name)
			}
			if seen[f.Name] {
				t.Errorf("%s: two columns %q", kind, f.Name)
			}
			seen[f.Name] = true
		}
	}
}
