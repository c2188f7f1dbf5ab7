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

func ExampleErrorSummary() {
	v, err := validation.ValidateTimingModel()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range v.Summaries {
		fmt.Printf("%s: %d rows, mean |error| %.1f%%, %d beyond 15%%\n", s.Tables, s.Rows, 100*s.MAE, s.Beyond)
	}
	// Output:
	// Zero Bubble timing rows: 21 rows, mean |error| 2.8%, 0 beyond 15%
	// SC21 Table 1: 6 rows, mean |error| 2.4%, 0 beyond 15%
	// Korthikanti et al. Tables 4 and 5: 19 rows, mean |error| 5.0%, 0 beyond 15%
	// Every timing row: 46 rows, mean |error| 3.7%, 0 beyond 15%
}
