package results

import (
	"fmt"
	"reflect"

	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/pipelab/pipelab/internal/budget"
)

// checkLayout refuses a Parquet file whose footer cannot describe a table
// of this package before any column is read: a row count or a column
// chunk's size or offset below zero, a chunk that reaches past the end of
// the file (size bytes), or data that would not fit in memory once read
// (the chunks' uncompressed bytes and the rows decoded into R, against
// budget.Limit). Arrow's reader trusts the footer and allocates what it
// declares, so a crafted or damaged file would otherwise panic or exhaust
// memory (FuzzReadTable's inputs).
func checkLayout[R any](rd *file.Reader, size int64) error {
	md := rd.MetaData()
	if md.NumRows < 0 {
		return fmt.Errorf("the footer declares %d rows", md.NumRows)
	}
	var bytes float64
	for g := range rd.NumRowGroups() {
		rg := md.RowGroup(g)
		if rg.NumRows() < 0 {
			return fmt.Errorf("row group %d declares %d rows", g, rg.NumRows())
		}
		for c := range rg.NumColumns() {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				return fmt.Errorf("row group %d, column %d: %w", g, c, err)
			}
			start := cc.DataPageOffset()
			if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 {
				start = min(start, cc.DictionaryPageOffset())
			}
			n, u := cc.TotalCompressedSize(), cc.TotalUncompressedSize()
			if start < 0 || n < 0 || u < 0 || start > size || n > size-start {
				return fmt.Errorf("row group %d, column %d (%s) declares %d bytes at offset %d, outside the file's %d bytes",
					g, c, cc.PathInSchema(), n, start, size)
			}
			bytes += float64(u)
		}
	}
	var row R
	bytes += float64(md.NumRows) * float64(reflect.TypeOf(row).Size())
	return budget.Check("reading the table", bytes)
}
