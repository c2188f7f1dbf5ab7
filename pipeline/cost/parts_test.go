package cost

import (
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

// TestGPUForTablePartition prices Chimera's table (2P stages, P parts)
// from a partition of the layers into its P parts: stage s and its
// replica P+s are priced as the plain GPU model's part s, compute, memory,
// messages and all-reduce alike. With the even cut it is GPUForTable. A
// table without Routes gets the plain GPU model of the partition.
func TestGPUForTablePartition(t *testing.T) {
	cfg := presetConfig(t, "vlm-7b", "h100", "ib-ndr")
	const p = 4
	chimera, err := pipeline.Generate("chimera", pipeline.Shape{Ranks: p, Microbatches: p})
	if err != nil {
		t.Fatal(err)
	}
	part := []int{31, 10, 9, 10} // 60 layers
	plain, err := NewGPUModelPartition(cfg, part)
	if err != nil {
		t.Fatal(err)
	}
	priced, err := GPUForTablePartition(cfg, chimera, part)
	if err != nil {
		t.Fatal(err)
	}
	sync, ok := priced.(GradientSync)
	if !ok {
		t.Fatalf("%T does not price the gradient all-reduce", priced)
	}
	for s := range 2 * p {
		q := s % p // stages s and P+s replicate part s (arXiv 2107.06925, §3.1)
		f, b := pipeline.F(s, 0), pipeline.B(s, 0)
		if priced.Compute(f) != plain.Compute(pipeline.F(q, 0)) || priced.Compute(b) != plain.Compute(pipeline.B(q, 0)) {
			t.Errorf("stage %d: F %g, B %g; want part %d's %g, %g", s, priced.Compute(f), priced.Compute(b), q,
				plain.Compute(pipeline.F(q, 0)), plain.Compute(pipeline.B(q, 0)))
		}
		if priced.StaticBytes(s) != plain.StaticBytes(q) || priced.ActivationBytes(s) != plain.ActivationBytes(q) {
			t.Errorf("stage %d: static %g, activation %g bytes; want part %d's %g, %g", s, priced.StaticBytes(s), priced.ActivationBytes(s), q,
				plain.StaticBytes(q), plain.ActivationBytes(q))
		}
		if priced.MessageBytes(f) != plain.MessageBytes(pipeline.F(q, 0)) {
			t.Errorf("stage %d: message %g bytes, want part %d's %g", s, priced.MessageBytes(f), q, plain.MessageBytes(pipeline.F(q, 0)))
		}
		if sync.AllReduce(s, []int{0, 1}) != plain.AllReduce(q, []int{0, 1}) {
			t.Errorf("stage %d: all-reduce %g, want part %d's %g", s, sync.AllReduce(s, []int{0, 1}), q, plain.AllReduce(q, []int{0, 1}))
		}
	}

	// The even cut reproduces GPUForTable, stage for stage.
	layers, err := cfg.Layers()
	if err != nil {
		t.Fatal(err)
	}
	even, err := EvenPartition(layers, p)
	if err != nil {
		t.Fatal(err)
	}
	byEven, err := GPUForTablePartition(cfg, chimera, even)
	if err != nil {
		t.Fatal(err)
	}
	byTable, err := GPUForTable(cfg, chimera)
	if err != nil {
		t.Fatal(err)
	}
	for s := range 2 * p {
		if byEven.Compute(pipeline.B(s, 0)) != byTable.Compute(pipeline.B(s, 0)) || byEven.StaticBytes(s) != byTable.StaticBytes(s) {
			t.Errorf("stage %d: the even cut prices B %g and %g static bytes, GPUForTable %g and %g", s,
				byEven.Compute(pipeline.B(s, 0)), byEven.StaticBytes(s), byTable.Compute(pipeline.B(s, 0)), byTable.StaticBytes(s))
		}
	}

	// Without Routes, the plain GPU model of the partition.
	oneF1B, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: p, Microbatches: p})
	if err != nil {
		t.Fatal(err)
	}
	m, err := GPUForTablePartition(cfg, oneF1B, part)
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := m.(*GPUModel); !ok || len(g.Partition()) != p || g.Partition()[0] != part[0] {
		t.Errorf("1F1B: %T %v, want *GPUModel with partition %v", m, m, part)
	}

	// Errors name what is wrong.
	for _, tc := range []struct {
		table *pipeline.Table
		part  []int
		want  string
	}{
		{chimera, []int{8, 8, 8, 8, 7, 7, 7, 7}, "partition [8 8 8 8 7 7 7 7] has 8 entries; the table's 8 stages on 2 routes run 4 model parts"},
		{oneF1B, []int{30, 30}, "has 2 entries; the table's 4 stages run 4 model parts"},
		{chimera, []int{31, 10, 9, 9}, "covers 59 layers; the model has 60"},
		{chimera, []int{60, 0, 0, 0}, "gives stage 1 0 layers"},
	} {
		if _, err := GPUForTablePartition(cfg, tc.table, tc.part); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("partition %v: error %v, want one mentioning %q", tc.part, err, tc.want)
		}
	}
}
