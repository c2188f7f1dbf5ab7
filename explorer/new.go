package explorer

import (
	"time"

	typed "github.com/pipelab/pipelab/request"
)

// Options are the settings of a server New builds: Slots, Remote and the
// timeouts, as Server's fields of the same names say.
type Options struct {
	// Commands are commands beyond the library's own, as Server's.
	Commands                               []typed.Command
	Slots                                  int
	Remote                                 bool
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
}

// New returns the explorer's server built from the library alone: every
// command the library types (request.CommandNamed: simulate, schedule,
// check, presets, kinds) decoded from the page's flags by the library's
// own decoders and run by its functions, in this process, with no command
// line; the flags a request may set read from the same flag sets
// (request.FlagsOf); Options.Commands adds train (request/train.Command),
// which needs Arrow. Any main package (pipelab serve, the static
// WebAssembly build) builds the same server with it.
func New(o Options) *Server {
	return &Server{
		Commands:     o.Commands,
		Slots:        o.Slots,
		Remote:       o.Remote,
		ReadTimeout:  o.ReadTimeout,
		WriteTimeout: o.WriteTimeout,
		IdleTimeout:  o.IdleTimeout,
	}
}
