package experiments

import (
	"reflect"
	"slices"
	"testing"
)

// Temporary (yaml-presets): the embedded preset files, parsed, are the
// specs the Go builders make (Presets, validated), and expand to the same
// run ids and canonical names in the same order, every figure, both sizes.
func TestEmbeddedPresetsEqualGo(t *testing.T) {
	for _, f := range Figures() {
		for _, quick := range []bool{true, false} {
			want := f.Presets(quick)
			for _, s := range want {
				if err := s.Validate(); err != nil {
					t.Fatal(err)
				}
			}
			got, err := f.embeddedPresets(quick)
			if err != nil {
				t.Fatalf("%s quick=%v: %v", f.Name, quick, err)
			}
			if len(got) != len(want) {
				t.Errorf("%s quick=%v: %d specs in the file, %d in Go", f.Name, quick, len(got), len(want))
				continue
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("%s quick=%v spec %d (%s): file\n%+v\nGo\n%+v", f.Name, quick, i, want[i].Name, *got[i], *want[i])
				}
			}
			gr, err := ExpandAll(got)
			if err != nil {
				t.Fatal(err)
			}
			wr, err := f.Runs(quick)
			if err != nil {
				t.Fatal(err)
			}
			key := func(rs []Run) []string {
				var out []string
				for _, r := range rs {
					out = append(out, r.ID+" "+r.Name)
				}
				return out
			}
			if !slices.Equal(key(gr), key(wr)) {
				t.Errorf("%s quick=%v: %d runs from the file, %d from Go, ids or names differ", f.Name, quick, len(gr), len(wr))
			} else {
				t.Logf("%s quick=%v: %d specs equal, %d runs with identical ids and names", f.Name, quick, len(got), len(gr))
			}
		}
	}
}
