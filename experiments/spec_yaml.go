package experiments

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// EncodeSpecs writes specs as a YAML stream, one document a spec, in the
// keys ParseSpecs reads: a key is written only where its field is set
// (a zero value is what an absent key decodes to, so the stream decodes
// to the same specs), lists of numbers and step grids on one line.
func EncodeSpecs(w io.Writer, specs []*Spec) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	for i, s := range specs {
		n, _ := encodeValue(reflect.ValueOf(*s))
		if n == nil {
			n = &yaml.Node{Kind: yaml.MappingNode}
		}
		if err := enc.Encode(n); err != nil {
			return fmt.Errorf("spec %d (%s): %w", i, s.Name, err)
		}
	}
	return enc.Close()
}

// encodeValue returns v's YAML node, or nil where v is unset: a zero
// scalar, an empty list, a nil pointer, a struct with nothing set.
func encodeValue(v reflect.Value) (*yaml.Node, bool) {
	switch x := v.Interface().(type) {
	case Delta:
		switch {
		case x.Paper:
			return scalar("paper", "!!str"), true
		case x.Model != "":
			return scalar(x.Model, "!!str"), true
		}
		return scalar(strconv.Itoa(x.Value), "!!int"), true
	case OptimizerSpec:
		if x == (OptimizerSpec{Name: x.Name}) {
			if x.Name == "" {
				return nil, false
			}
			return scalar(x.Name, "!!str"), true
		}
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil, false
		}
		n, _ := encodeValue(v.Elem())
		if n == nil { // a pointer to a zero value is set: write the zero
			n = zeroScalar(v.Elem())
		}
		return n, true
	case reflect.Struct:
		m := &yaml.Node{Kind: yaml.MappingNode}
		if v.Type() == reflect.TypeFor[Grid]() {
			m.Style = yaml.FlowStyle
		}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if !f.IsExported() || key == "-" || key == "" {
				continue
			}
			if n, ok := encodeValue(v.Field(i)); ok {
				m.Content = append(m.Content, scalar(key, "!!str"), n)
			}
		}
		if len(m.Content) == 0 {
			return nil, false
		}
		return m, true
	case reflect.Slice:
		if v.Len() == 0 {
			return nil, false
		}
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		flow := true
		for i := range v.Len() {
			n, ok := encodeValue(v.Index(i))
			if !ok {
				n = zeroScalar(v.Index(i))
			}
			flow = flow && n.Kind == yaml.ScalarNode
			seq.Content = append(seq.Content, n)
		}
		if flow {
			seq.Style = yaml.FlowStyle
		}
		return seq, true
	}
	if v.IsZero() {
		return nil, false
	}
	return zeroScalar(v), true
}

// zeroScalar writes a scalar value (zero or not) as YAML.
func zeroScalar(v reflect.Value) *yaml.Node {
	switch v.Kind() {
	case reflect.String:
		return scalar(v.String(), "!!str")
	case reflect.Bool:
		return scalar(strconv.FormatBool(v.Bool()), "!!bool")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return scalar(strconv.FormatInt(v.Int(), 10), "!!int")
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return scalar(strconv.FormatUint(v.Uint(), 10), "!!int")
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			// A whole number reads as itself into a float field: 10, not
			// "!!float 10".
			return scalar(strconv.FormatFloat(f, 'f', -1, 64), "!!int")
		}
		return scalar(strconv.FormatFloat(f, 'g', -1, 64), "!!float")
	}
	// Every field of a spec is one of the kinds above or a list, struct or
	// pointer of them; a new kind must be taught here.
	panic(fmt.Sprintf("experiments: EncodeSpecs cannot write a %s", v.Type()))
}

func scalar(value, tag string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
}
