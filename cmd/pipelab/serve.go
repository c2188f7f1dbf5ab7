package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/pipelab/pipelab/experiments"
	"github.com/pipelab/pipelab/explorer"
	"github.com/pipelab/pipelab/internal/budget"
	"github.com/pipelab/pipelab/optim"
)

func init() {
	register(command{
		name:    "serve",
		summary: "serve the schedule explorer, an interactive page in the browser (docs/explorer.md)",
		run:     runServe,
	})
}

const serveDescription = `
Serves the explorer on --addr (a loopback address by default): one page,
embedded in the binary, that runs schedule, simulate, compare, tune, delays
and train and draws what they compute (the Gantt chart, per-rank memory,
bubbles and communication waits, the three-level comparison, delay
profiles, a replay's loss curve as it runs). Each request runs the command
line's own code, so the page's numbers and errors are the command line's;
docs/explorer.md describes the page and its API. --max-memory holds for
every request. Stop it with Ctrl-C.`

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", "[--addr 127.0.0.1:8080]", serveDescription, stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on, host:port (a non-loopback host exposes the page to the network)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArguments(fs.Args()); err != nil {
		return flagProblem(fs, stderr, "serve", err)
	}
	limit := ""
	if setFlags(fs)["max-memory"] {
		b, _, _ := budget.Limit()
		limit = fmt.Sprintf("--max-memory=%d", b)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return badInput{fmt.Errorf("--addr %s: %w", *addr, err)}
	}
	srv := &explorer.Server{
		Run: func(a []string, out, errOut io.Writer) int { return run(withLimit(a, limit), out, errOut) },
		Train: func(ctx context.Context, a []string, record func(any), out, errOut io.Writer) int {
			return runRecorded(ctx, withLimit(a, limit), record, out, errOut)
		},
	}
	fmt.Fprintf(stdout, "pipelab serve: the explorer is on http://%s/ (Ctrl-C stops it)\n", ln.Addr())
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	return hs.Serve(ln)
}

// withLimit adds serve's own --max-memory to a request's command line, so
// that the limit it was started with holds for each command (run resets
// the limit for every command line).
func withLimit(args []string, limit string) []string {
	if limit == "" || len(args) == 0 {
		return args
	}
	return append([]string{args[0], limit}, args[1:]...)
}

// runRecorded is run for a "train" command line that passes each loss
// record to record as it is taken, in the form of the report's curve, and
// stops at the next record once ctx ends. It follows runTrain step for
// step; serve_test.go checks that its report is the command's.
func runRecorded(ctx context.Context, args []string, record func(any), stdout, stderr io.Writer) int {
	budget.SetLimit(0)
	if len(args) == 0 || args[0] != "train" {
		fmt.Fprintln(stderr, "pipelab serve: only train streams its records")
		return 2
	}
	err := trainRecorded(ctx, args[1:], record, stdout, stderr)
	return commandStatus("train", err, stdout, stderr)
}

func trainRecorded(ctx context.Context, args []string, record func(any), stdout, stderr io.Writer) error {
	return trainWith(ctx, args, func(r optim.Record) error {
		record(curvePt{SimTime: r.Time, BlockUpdates: r.Updates, Loss: finiteOrNil(r.Loss), ValidationLoss: finiteOrNil(r.ValidationLoss)})
		return nil
	}, stdout, stderr)
}

// commandStatus prints err as run does and returns run's exit status.
func commandStatus(name string, err error, stdout, stderr io.Writer) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		if h, ok := isHelp(err); ok {
			h.print(stdout)
		}
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintf(stderr, "pipelab %s: %s\n", name, strings.TrimPrefix(err.Error(), name+": "))
	if errors.Is(err, budget.ErrTooLarge) || errors.Is(err, experiments.ErrBadInput) || errors.As(err, new(badInput)) {
		return 2
	}
	return 1
}
