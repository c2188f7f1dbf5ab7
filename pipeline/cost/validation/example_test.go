package validation_test

import (
	"fmt"

	"github.com/pipelab/pipelab/pipeline/cost/validation"
)

func ExampleValidateTimingModel() {
	v, err := validation.ValidateTimingModel()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range v.Rows {
		if r.Section == "stage" && r.Config == "28.3B (p 32, b 1)" && r.Quantity == "T_F" {
			fmt.Printf("efficiency %.3f from %s; 28.3B T_F: published %.3f ms, predicted %.3f ms (%+.0f%%)\n",
				v.Efficiency, "1.5B", r.Published, r.Predicted, 100*r.Error)
		}
	}
	// Output:
	// efficiency 0.806 from 1.5B; 28.3B T_F: published 10.419 ms, predicted 9.573 ms (-8%)
}
