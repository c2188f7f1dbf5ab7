package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/pipelab/pipelab/fault"
	"github.com/pipelab/pipelab/request/train"
	"io"
	"net"
	"net/http"
	"runtime"

	"github.com/pipelab/pipelab/explorer"
	"github.com/pipelab/pipelab/internal/budget"
	"github.com/pipelab/pipelab/request"
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
profiles, a replay's loss curve as it runs). Each request decodes its
flags as the command line does and runs the same library function, so the
page's numbers and errors are the command line's;
docs/explorer.md describes the page and its API. --max-memory holds for
every request. Stop it with Ctrl-C.`

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := request.NewFlags("serve", "[--addr 127.0.0.1:8080]", serveDescription, stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on, host:port (a non-loopback host exposes the page to the network)")
	if err := request.ParseFlags(fs, args); err != nil {
		return err
	}
	if err := request.NoArguments(fs.Args()); err != nil {
		return request.FlagProblem(fs, stderr, "serve", err)
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
// request per core at once, with train, the one command whose library
// (request/train) needs Arrow, handed in: the server runs no command line.
func newServer(remote bool) *explorer.Server {
	return explorer.New(explorer.Options{Commands: []request.Command{train.Command()}, Slots: runtime.GOMAXPROCS(0), Remote: remote})
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
