package train

import (
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/fault"
	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/request"
)

// quadraticArgs is a small PipeDream run on the random quadratic.
var quadraticArgs = []string{"--objective", "quadratic", "--n", "120", "--d", "16", "--batch-size", "8",
	"--stages", "3", "--total-microbatches", "30", "--method", "pipedream", "--step-size", "0.01", "--log-points", "5"}

// Train hands each record to the caller as it is taken, and the report's
// curve is those records, in order, bit for bit; its final loss is the
// curve's last.
func TestTrainStreamsTheReportsCurve(t *testing.T) {
	req, _, err := Decode(quadraticArgs, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var streamed []optim.Record
	rep, err := Train(context.Background(), req, func(r optim.Record) error {
		streamed = append(streamed, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(streamed) == 0 || len(streamed) != len(rep.Curve) {
		t.Fatalf("%d records streamed, %d in the report's curve", len(streamed), len(rep.Curve))
	}
	for i, r := range streamed {
		c := rep.Curve[i]
		if math.Float64bits(r.Loss) != math.Float64bits(float64(c.Loss)) || r.Updates != c.BlockUpdates || r.Time != c.SimTime {
			t.Errorf("record %d: streamed %+v, reported %+v", i, r, c)
		}
	}
	if last := rep.Curve[len(rep.Curve)-1]; float64(rep.FinalLoss) != float64(last.Loss) {
		t.Errorf("final loss %v, the curve ends at %v", rep.FinalLoss, last.Loss)
	}
	if rep.Stages != 3 || rep.Method != "pipedream" || rep.Outcome != "ok" {
		t.Errorf("report %+v, want S = 3, pipedream, ok", rep)
	}
}

// An error from the record callback (a client that went away) ends the
// replay at that record and comes back from Train.
func TestTrainStopsOnRecordError(t *testing.T) {
	req, _, err := Decode(quadraticArgs, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	gone := errors.New("client gone")
	calls := 0
	_, err = Train(context.Background(), req, func(optim.Record) error {
		calls++
		return gone
	})
	if !errors.Is(err, gone) || calls != 1 {
		t.Errorf("Train returned %v after %d records, want %v after 1", err, calls, gone)
	}
}

// A bad flag is a usage error whose one line on stderr names the flag (or
// argument) that was wrong, and a request Decode did not build is bad
// input.
func TestDecodeRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		name string
	}{
		{[]string{"--objective", "nope"}, "--objective"},
		{[]string{"--objective", "quadratic", "--method", "pipedream", "--stages", "0"}, "--stages"},
		{[]string{"--no-such-flag"}, "no-such-flag"},
		{append(append([]string{}, quadraticArgs...), "extra"), "extra"},
	} {
		var stderr strings.Builder
		_, _, err := Decode(c.args, &stderr)
		line := strings.TrimSpace(stderr.String())
		if !errors.Is(err, request.ErrUsage) || strings.Count(line, "\n") != 0 || !strings.Contains(line, c.name) {
			t.Errorf("Decode(%q): %v and %q on stderr, want a usage error and one line naming %q", c.args, err, line, c.name)
		}
	}
	if _, err := Train(context.Background(), Request{}, nil); !errors.Is(err, fault.BadInput) {
		t.Errorf("Train of a zero request: %v, want bad input", err)
	}
}
