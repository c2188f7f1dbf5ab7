package experiments

import (
	"testing"

	"github.com/pipelab/pipelab/results"
)

// figureGPU is the hardware the figure files name for their GPU variants
// (experiments/figures/*.yaml): gpt-1.3b on A100s over NVLink, the
// schedules figure's second comparison over PCIe.
var figureGPU = CostSpec{CostModel: "gpu", Preset: "gpt-1.3b", GPU: "a100", Link: "nvlink", Microbatch: 1, Sequence: 2048}

// TestRunsClock: runs of a preset figure, recognised by their ids, name
// the GPU model's presets of the spec they came from (the preset file's
// cost: figureGPU); runs of a user's spec, or of two clocks, the cost model
// alone.
func TestRunsClock(t *testing.T) {
	f, err := LookupFigure("lm-markov") // timed in unit steps and by the GPU model
	if err != nil {
		t.Fatal(err)
	}
	runs, err := f.Runs(true)
	if err != nil {
		t.Fatal(err)
	}
	var gpu, both []results.Run
	for _, r := range runs {
		row := results.Run{RunID: r.ID, CostModel: r.Cost.CostModel}
		both = append(both, row)
		if r.Cost.CostModel == results.CostGPU {
			gpu = append(gpu, row)
		}
	}
	want := results.Clock{CostModel: results.CostGPU, Preset: figureGPU.Preset, GPU: figureGPU.GPU, Link: figureGPU.Link}
	if len(gpu) == 0 || runsClock(gpu) != want {
		t.Errorf("lm-markov's GPU runs (%d): clock %+v, want %+v", len(gpu), runsClock(gpu), want)
	}
	if got := runsClock(both); got.Preset != "" {
		t.Errorf("runs of two clocks named one: %+v", got)
	}
	user := []results.Run{{RunID: "not-a-preset-run", CostModel: results.CostGPU}}
	if got := runsClock(user); got != (results.Clock{CostModel: results.CostGPU}) {
		t.Errorf("a user's run: clock %+v, want the cost model alone", got)
	}
}

// TestScheduleClock: the schedules figure's PCIe comparison is named with
// its link, from the timing part of its schedule ids.
func TestScheduleClock(t *testing.T) {
	pcie := figureGPU
	pcie.Link = "pcie"
	id := scheduleID(pcie, 4, 8, "1f1b", results.LevelSimulated)
	want := results.Clock{CostModel: results.CostGPU, Preset: pcie.Preset, GPU: pcie.GPU, Link: "pcie"}
	if got := scheduleClock(id); got != want {
		t.Errorf("scheduleClock(%q) = %+v, want %+v", id, got, want)
	}
	if got := scheduleClock(scheduleComparison(id)); got != want {
		t.Errorf("scheduleClock(%q) = %+v, want %+v", scheduleComparison(id), got, want)
	}
	if got := scheduleClock("gpu-other-h100-ib_p4-m8_1f1b_simulated"); got != (results.Clock{}) {
		t.Errorf("an unknown timing: %+v, want none", got)
	}
}
