package pipeline

import "testing"

// BenchmarkGenerateLower1F1B64x1024 generates 1F1B for 64 ranks and 1024
// microbatches and lowers it (PyTorch's _add_send_recv).
func BenchmarkGenerateLower1F1B64x1024(b *testing.B) {
	sh := Shape{Ranks: 64, Microbatches: 1024}
	for b.Loop() {
		t, err := Generate("1f1b", sh)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Lower(t); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerate1F1B64x1024 is the generation alone, to split the
// figure above between the generator and Lower.
func BenchmarkGenerate1F1B64x1024(b *testing.B) {
	sh := Shape{Ranks: 64, Microbatches: 1024}
	for b.Loop() {
		if _, err := Generate("1f1b", sh); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLower1F1B64x1024 is Lower alone on the same table, generated
// once outside the timed loop.
func BenchmarkLower1F1B64x1024(b *testing.B) {
	t, err := Generate("1f1b", Shape{Ranks: 64, Microbatches: 1024})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Lower(t); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCopy1F1B64x1024 is the baseline of the benchmark above: one
// deep copy of the same table, the least any transformation of it costs.
func BenchmarkCopy1F1B64x1024(b *testing.B) {
	t, err := Generate("1f1b", Shape{Ranks: 64, Microbatches: 1024})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		_ = t.Clone()
	}
}

// BenchmarkLockstep1F1B64x1024 runs PyTorch's lockstep check
// (_simulate_comms_compute) on the lowered table of the benchmarks above;
// the lowering is done once, outside the timed loop.
func BenchmarkLockstep1F1B64x1024(b *testing.B) {
	t, err := Generate("1f1b", Shape{Ranks: 64, Microbatches: 1024})
	if err != nil {
		b.Fatal(err)
	}
	low, err := Lower(t)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Lockstep(low); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLowerLockstep1F1B64x1024 counts the lockstep steps of the same
// table lowered, without building the lowered table (what "pipelab
// simulate" prints); compare with Lower plus Lockstep above.
func BenchmarkLowerLockstep1F1B64x1024(b *testing.B) {
	t, err := Generate("1f1b", Shape{Ranks: 64, Microbatches: 1024})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := LowerLockstep(t); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGeneratePipeDream64x1024 generates asynchronous PipeDream for 64
// stages and 1024 microbatches (NOAM = S): the unit-time run of
// docs/reference.md §1.2, whose grid is 2N + 2S - 2 = 2174 steps on each of the
// 64 stages.
func BenchmarkGeneratePipeDream64x1024(b *testing.B) {
	sh := Shape{Ranks: 64, Microbatches: 1024}
	for b.Loop() {
		if _, err := Generate("pipedream", sh); err != nil {
			b.Fatal(err)
		}
	}
}
