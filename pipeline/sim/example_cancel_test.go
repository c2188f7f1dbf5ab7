package sim_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

// A simulation cut short by its context returns the context's error: here
// a deadline already passed, as a server's request whose client has gone.
func ExampleOptions_context() {
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 8, Microbatches: 64})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	_, err = sim.Simulate(tab, cost.Unit{}, sim.Options{Context: ctx})
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	// Output: true
}
