package tune_test

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/tune"
)

func ExampleTuneMeasured() {
	// Four stages measured at T_F 2, T_B 2, T_W 1 ms, 0.1 ms per transfer.
	// Without transfers the closed forms give ZB-H2 (8·5 + 3·2)/8 = 5.75 ms
	// per microbatch and 1F1B (8 + 3)·5/8 = 6.875 ms.
	m := cost.Measured{Source: "costs.csv", Comm: []float64{1e-4, 1e-4, 1e-4}}
	for range 4 {
		m.Stages = append(m.Stages, cost.Stage{TF: 2e-3, TB: 2e-3, TW: 1e-3})
	}
	res, err := tune.TuneMeasured(tune.MeasuredProblem{Costs: m, Ranks: 4, Microbatches: []int{8}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %.2f ms per microbatch, %.2f× over %s\n", res.Best.Schedule, 1e3*res.Best.PerSample, res.Speedup, res.Baseline.Schedule)
	// Output:
	// zb-h2: 5.83 ms per microbatch, 1.21× over 1f1b
}
