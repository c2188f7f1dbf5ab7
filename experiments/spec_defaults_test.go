package experiments

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// defaultsCases leave out every key setDefaults fills, one branch each.
var defaultsCases = map[string]string{
	"convergence": `
objectives: [quadratic]
n: 64
d: 16
batch_size: 4
stages: [4]
total_microbatches: [40]
cost: {cost_model: gpu}
methods:
  - {name: pipedream, kind: pipedream, step_sizes: {values: [0.01]}}
  - {name: rpd, step_sizes: {values: [0.01]}}
  - {name: sync, step_sizes: {values: [0.01]}}
  - {name: ef, step_sizes: {values: [0.01]}}
  - {name: pipemare, step_sizes: {values: [0.01]}}
  - {name: dc, step_sizes: {values: [0.01]}}
`,
	"charlm": `
objectives: [charlm]
batch_size: 4
stages: [3]
total_microbatches: [12]
methods: [{name: pipedream, step_sizes: {values: [0.01]}}]
`,
	"delays":         "measure: delays\nstages: [2, 4]\n",
	"delay-profiles": "measure: delay-profiles\nstages: [4]\n",
}

// decodeSpecs decodes a stream of specs as written, without defaults or
// checks.
func decodeSpecs(t *testing.T, file string, src []byte) []*Spec {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var out []*Spec
	for {
		var s Spec
		err := dec.Decode(&s)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		s.Cost.resolve(file)
		out = append(out, &s)
	}
}

// TestChecksChangeNothing: the defaults are filled in one step. A spec
// whose defaults setDefaults wrote out is unchanged by the checks, for
// every example and for specs that leave out every defaulted key.
func TestChecksChangeNothing(t *testing.T) {
	srcs := map[string][]byte{}
	for name, src := range defaultsCases {
		srcs[name+".yaml"] = []byte(src)
	}
	paths, err := filepath.Glob("../examples/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		srcs[p] = b
	}
	for file, src := range srcs {
		filled, checked := decodeSpecs(t, file, src), decodeSpecs(t, file, src)
		for i := range filled {
			filled[i].setDefaults()
			checked[i].setDefaults()
			if err := checked[i].check(nil); err != nil {
				t.Fatalf("%s, spec %d: %v", file, i, err)
			}
			if !reflect.DeepEqual(filled[i], checked[i]) {
				t.Errorf("%s, spec %d: the checks changed the spec:\n filled %+v\nchecked %+v", file, i, *filled[i], *checked[i])
			}
		}
	}
}

// TestDefaultsWrittenOut: each default the spec leaves out is written out
// as setDefaults' comment lists it, and a spec with its defaults written
// out expands to the same runs as the spec as given.
func TestDefaultsWrittenOut(t *testing.T) {
	conv := decodeSpecs(t, "convergence.yaml", []byte(defaultsCases["convergence"]))[0]
	conv.setDefaults()
	c := conv.Cost
	if conv.Measure != Convergence || conv.Seeds != 1 || conv.Select != "best-final" ||
		c.CostModel != "gpu" || c.Preset != DefaultGPU.Preset || c.GPU != DefaultGPU.GPU || c.Link != DefaultGPU.Link ||
		c.Microbatch != DefaultGPU.Microbatch || c.Sequence != DefaultGPU.Sequence {
		t.Errorf("shared defaults: %+v", *conv)
	}
	m := conv.Methods
	if m[0].Name != "pipedream" || m[0].Family != "" || !reflect.DeepEqual(m[1].Deltas, []Delta{{Paper: true}}) ||
		m[2].Family != DefaultFlush || m[3].EFLambda == nil || m[4].PipeMareDecay == nil || m[5].DCLambda == nil {
		t.Errorf("method defaults: %+v", m)
	}
	lm := decodeSpecs(t, "charlm.yaml", []byte(defaultsCases["charlm"]))[0]
	lm.setDefaults()
	if lm.Corpus != "tinyshakespeare" || lm.BlocksPerStage != 1 {
		t.Errorf("charlm defaults: corpus %q, blocks_per_stage %d", lm.Corpus, lm.BlocksPerStage)
	}
	for _, name := range []string{"delays", "delay-profiles"} {
		s := decodeSpecs(t, name+".yaml", []byte(defaultsCases[name]))[0]
		s.setDefaults()
		if s.TotalMicrobatchesPerStage != 10 {
			t.Errorf("%s: total_microbatches_per_stage %d, want 10", name, s.TotalMicrobatchesPerStage)
		}
		if name == "delay-profiles" && (len(s.Methods) != 1 || s.Methods[0].Name != "pipedream" ||
			!reflect.DeepEqual(s.Families, []string{DefaultAsyncFamily})) {
			t.Errorf("delay-profiles: methods %+v, kinds %v", s.Methods, s.Families)
		}
	}

	// Written out and read back, every case expands to the runs, ids and
	// names of the spec as given.
	for name, src := range defaultsCases {
		given, err := ParseSpec(name+".yaml", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var buf bytes.Buffer
		if err := EncodeSpecs(&buf, []*Spec{given}); err != nil {
			t.Fatal(err)
		}
		back, err := ParseSpecs(name+".yaml", buf.Bytes())
		if err != nil {
			t.Fatalf("%s written out:\n%s\n%v", name, buf.String(), err)
		}
		for _, key := range []string{"measure:", "seeds:"} {
			if !strings.Contains(buf.String(), key) {
				t.Errorf("%s written out lacks %s:\n%s", name, key, buf.String())
			}
		}
		a, b := given.Expand(), back[0].Expand()
		if len(a) != len(b) {
			t.Fatalf("%s: %d runs, %d written out", name, len(a), len(b))
		}
		for i := range a {
			if a[i].ID != b[i].ID || a[i].Name != b[i].Name {
				t.Errorf("%s run %d: %s %s, written out %s %s", name, i, a[i].ID, a[i].Name, b[i].ID, b[i].Name)
			}
		}
	}
}
