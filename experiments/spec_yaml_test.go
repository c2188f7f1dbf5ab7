package experiments

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestEncodeSpecsRoundTrip: every figure's specs, read from its preset
// file, written by EncodeSpecs and read back by ParseSpecs, are the same
// specs, and the stream expands into the figure's runs: EncodeSpecs
// writes everything a spec says.
func TestEncodeSpecsRoundTrip(t *testing.T) {
	for _, f := range Figures() {
		for _, quick := range []bool{true, false} {
			want, err := f.Presets(quick)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := EncodeSpecs(&buf, want); err != nil {
				t.Fatalf("%s quick=%v: %v", f.Name, quick, err)
			}
			read, err := ParseSpecs(f.Name+".yaml", buf.Bytes())
			if err != nil {
				t.Fatalf("%s quick=%v: %v\n%s", f.Name, quick, err, buf.String())
			}
			if !reflect.DeepEqual(read, want) {
				t.Errorf("%s quick=%v: the %d specs read back differ from the %d written\n%s", f.Name, quick, len(read), len(want), buf.String())
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

// TestEncodeSpecsWritesEveryField: every value a spec can hold is of a
// kind EncodeSpecs writes (zeroScalar's, or a list, struct or pointer of
// them), so that no spec, however written, reaches zeroScalar's panic for
// a kind it was never taught; a new field of another kind fails here
// first.
func TestEncodeSpecsWritesEveryField(t *testing.T) {
	writable := map[reflect.Kind]bool{reflect.String: true, reflect.Bool: true, reflect.Float32: true, reflect.Float64: true,
		reflect.Int: true, reflect.Int8: true, reflect.Int16: true, reflect.Int32: true, reflect.Int64: true,
		reflect.Uint: true, reflect.Uint8: true, reflect.Uint16: true, reflect.Uint32: true, reflect.Uint64: true}
	seen := map[reflect.Type]bool{}
	var walk func(typ reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice:
			walk(typ.Elem(), path+"[]")
		case reflect.Struct:
			if seen[typ] {
				return
			}
			seen[typ] = true
			for i := range typ.NumField() {
				f := typ.Field(i)
				key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
				if !f.IsExported() || key == "-" || key == "" {
					continue
				}
				walk(f.Type, path+"."+key)
			}
		default:
			if !writable[typ.Kind()] {
				t.Errorf("%s is a %s, which EncodeSpecs cannot write", path, typ)
			}
		}
	}
	walk(reflect.TypeFor[Spec](), "spec")
	if len(seen) < 4 {
		t.Fatalf("walked %d struct types; the spec has more", len(seen))
	}
}
