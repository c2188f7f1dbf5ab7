package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/pipelab/pipelab/fault"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"

	"github.com/pipelab/pipelab/explorer"
	"github.com/pipelab/pipelab/internal/budget"
	"github.com/pipelab/pipelab/optim"
)

// serveCommand is "pipelab serve"; main.go lists it.
var serveCommand = command{
	name:    "serve",
	summary: "serve the schedule explorer, an interactive page in the browser (docs/explorer.md)",
	run:     runServe,
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

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", "[--addr 127.0.0.1:8080]", serveDescription, stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on, host:port (a non-loopback host exposes the page to the network)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArguments(fs.Args()); err != nil {
		return flagProblem(fs, stderr, "serve", err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fault.Bad(fmt.Errorf("--addr %s: %w", *addr, err))
	}
	srv := newServer(!explorer.LoopbackAddr(*addr))
	if err := shareLimit(srv.Slots); err != nil {
		ln.Close()
		return err
	}
	if srv.Remote {
		fmt.Fprintf(stderr, "pipelab serve: warning: --addr %s is not a loopback address: every host that reaches it can run commands on this machine\n", *addr)
	}
	fmt.Fprintf(stdout, "pipelab serve: the explorer is on http://%s/ (Ctrl-C stops it)\n", ln.Addr())
	hs := srv.HTTPServer()
	stop := context.AfterFunc(ctx, func() { hs.Close() })
	defer stop()
	err = hs.Serve(explorer.LimitListener(ln, explorer.MaxConns))
	if errors.Is(err, http.ErrServerClosed) && ctx.Err() != nil {
		return nil
	}
	return err
}

// newServer is the explorer the library builds (explorer.New), one
// request per core at once; train, which the library does not type yet,
// runs in this process through runArgs and runRecorded (its stream), with
// the flags servedFlags reads from its flag set, until it is typed.
func newServer(remote bool) *explorer.Server {
	srv := explorer.New(explorer.Options{Slots: runtime.GOMAXPROCS(0), Remote: remote})
	srv.Run, srv.Train, srv.Flags = runArgs, runRecorded, servedFlags
	return srv
}

// shareLimit splits the memory limit (--max-memory, PIPELAB_MAX_MEMORY,
// or 3/4 of the memory available) among the server's slots, so that the
// commands running at once fit in it together: each command's size guard
// checks against its share. It is set once, for every request.
func shareLimit(slots int) error {
	b, _, err := budget.Limit()
	if err != nil {
		return fault.Bad(err)
	}
	budget.SetLimit(max(b/int64(slots), 1))
	return nil
}

// servedFlags says how the page may set each flag of command: the flags
// of its flag set, those that name a file it reads as uploads (or their
// keywords), those that name a file it writes, --format and --max-memory
// (the server's) not at all. The flag set is the command's own, taken
// from its --help, so that no list here can drift from it.
func servedFlags(command string) (map[string]explorer.Flag, error) {
	fs, err := flagSetOf(command)
	if err != nil {
		return nil, err
	}
	out := map[string]explorer.Flag{}
	fs.VisitAll(func(fl *flag.Flag) {
		var f explorer.Flag
		switch ff, ok := fl.Value.(fileFlag); {
		case ok && ff.Use == readsFile:
			f = explorer.Flag{File: true, Keywords: slices.Clone(ff.Keywords)}
		case ok || fl.Name == "format" || fl.Name == "max-memory":
			f.Refused = true
		}
		out[fl.Name] = f
	})
	return out, nil
}

// flagSetOf returns command's flag set, as its --help sees it.
func flagSetOf(command string) (*flag.FlagSet, error) {
	c, ok := commands[command]
	if !ok {
		return nil, fmt.Errorf("unknown command %q", command)
	}
	h, ok := isHelp(c.run(context.Background(), []string{"--help"}, io.Discard, io.Discard))
	if !ok {
		return nil, fmt.Errorf("pipelab %s --help gave no flag set", command)
	}
	return h.FS, nil
}

// runRecorded is runArgs for a "train" command line that passes each
// loss record to record as it is taken, in the form of the report's
// curve, and stops at the next record once ctx ends. serve_test.go checks
// that its report is the command's.
func runRecorded(ctx context.Context, args []string, record func(any), stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "train" {
		fmt.Fprintln(stderr, "pipelab serve: only train streams its records")
		return 2
	}
	err := trainWith(ctx, args[1:], func(r optim.Record) error {
		record(curvePt{SimTime: r.Time, BlockUpdates: r.Updates, Loss: finiteOrNil(r.Loss), ValidationLoss: finiteOrNil(r.ValidationLoss)})
		return nil
	}, stdout, stderr)
	return statusOf("train", err, stdout, stderr)
}
