package experiments

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestEncodeSpecsRoundTrip: every figure's specs, written by EncodeSpecs
// and read back by ParseSpecs, expand into the same runs as the specs
// built in Go, and as a stream into the figure's runs: the stream says
// everything the specs say, so "pipelab reproduce FIGURE --print-spec"
// swept gives the figure's tables.
func TestEncodeSpecsRoundTrip(t *testing.T) {
	for _, f := range Figures() {
		for _, quick := range []bool{true, false} {
			var buf bytes.Buffer
			if err := EncodeSpecs(&buf, f.Presets(quick)); err != nil {
				t.Fatalf("%s quick=%v: %v", f.Name, quick, err)
			}
			read, err := ParseSpecs(f.Name+".yaml", buf.Bytes())
			if err != nil {
				t.Fatalf("%s quick=%v: %v\n%s", f.Name, quick, err, buf.String())
			}
			want := f.Presets(quick)
			if len(read) != len(want) {
				t.Fatalf("%s quick=%v: %d specs read, %d written", f.Name, quick, len(read), len(want))
			}
			for i, s := range want {
				if err := s.Validate(); err != nil {
					t.Fatalf("%s quick=%v spec %d: %v", f.Name, quick, i, err)
				}
				got, exp := read[i].Expand(), s.Expand()
				if !reflect.DeepEqual(got, exp) {
					t.Errorf("%s quick=%v spec %d (%s): %d runs read back differ from the %d built in Go\n%s",
						f.Name, quick, i, s.Name, len(got), len(exp), buf.String())
				}
			}
			stream, err := ExpandAll(read)
			figure, ferr := f.Runs(quick)
			if err != nil || ferr != nil || !reflect.DeepEqual(stream, figure) {
				t.Errorf("%s quick=%v: the stream's %d runs (%v) are not the figure's %d (%v)", f.Name, quick, len(stream), err, len(figure), ferr)
			}
		}
	}
}

// TestParseSpecsNamesTheStreamLine: an error in the second document names
// its line in the whole stream, and a stream of comments alone is empty.
func TestParseSpecsNamesTheStreamLine(t *testing.T) {
	src := "# two specs\n---\nexperiment: a\nmeasure: delays\nstages: [2]\n---  # the second\nexperiment: b\nmeasure: delays\nstagez: [4]\n"
	_, err := ParseSpecs("two.yaml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "two.yaml:9:") || !strings.Contains(err.Error(), `"stagez"`) {
		t.Errorf("got %v, want an unknown key \"stagez\" at two.yaml:9", err)
	}
	specs, err := ParseSpecs("two.yaml", []byte(strings.Replace(src, "stagez", "stages", 1)))
	if err != nil || len(specs) != 2 || specs[0].Name != "a" || specs[1].Name != "b" {
		t.Errorf("got %d specs, %v; want a and b", len(specs), err)
	}
	if _, err := ParseSpecs("c.yaml", []byte("# nothing\n---\n# still nothing\n")); err == nil || !strings.Contains(err.Error(), "c.yaml: empty spec") {
		t.Errorf("got %v, want c.yaml: empty spec", err)
	}
}
