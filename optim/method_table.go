package optim

import (
	"fmt"
	"strings"
)

// Replay is where a method's delays come from, the trait callers once
// read off its name.
type Replay int

const (
	// ReplayAsync replays an asynchronous table, an update after every
	// weight-gradient backward: PipeDream and its remedies.
	ReplayAsync Replay = iota + 1
	// ReplayAveraging replays a replica-averaging table (LocalSGD).
	ReplayAveraging
	// ReplayFlush replays a flush schedule, one synchronous update per
	// iteration (Sync).
	ReplayFlush
	// ReplaySampled samples its delays from a DelayModel and keeps no
	// clock of its own (RPD).
	ReplaySampled
)

// Param is a set of the hyper-parameters only some methods take (fields
// of MethodOptions, keys of a spec's method entry).
type Param uint8

const (
	// ParamAccumulate is A, the microbatches accumulated per update
	// (MethodOptions.Accumulate; key accumulate).
	ParamAccumulate Param = 1 << iota
	// ParamPipeMare is pipemare's warm-up T and decay D.
	ParamPipeMare
	// ParamDCLambda is delay compensation's λ (dc) or λ0 (dc-a).
	ParamDCLambda
	// ParamEFLambda is error feedback's λ.
	ParamEFLambda
)

// MethodDesc describes a method by the traits callers test: its name and
// where its delays come from, the table it replays when a run names none,
// and the hyper-parameters it takes.
type MethodDesc struct {
	// Name is the name of specs, flags and the tables' method column.
	Name string
	// Replay says how the method gets its delays.
	Replay Replay
	// Family is the generated table the method replays (or, for rpd,
	// measures its delays on) when a run names none.
	Family string
	// Params are the hyper-parameters the method takes.
	Params Param
	// DCLambda is the method's λ when none is given (ParamDCLambda only).
	DCLambda float64
}

// Async reports whether the method replays an asynchronous table.
func (d MethodDesc) Async() bool { return d.Replay == ReplayAsync }

// Clocked reports whether the method runs on a timeline's clock: its
// records carry simulated time and a time budget bounds it. Only a method
// that samples its delays counts iterations instead.
func (d MethodDesc) Clocked() bool { return d.Replay != ReplaySampled && d.Replay != 0 }

// OwnsTable reports whether the method replays a table of its own family
// (pipedream, localsgd), not another method's or a flush schedule.
func (d MethodDesc) OwnsTable() bool { return d.Family == d.Name }

// Takes reports whether the method takes every hyper-parameter of p.
func (d MethodDesc) Takes(p Param) bool { return p != 0 && d.Params&p == p }

// methodTable is every method, in the order of Methods.
var methodTable = []MethodDesc{
	{Name: "pipedream", Replay: ReplayAsync, Family: "pipedream"},
	{Name: "pd-nostash", Replay: ReplayAsync, Family: "pipedream"},
	{Name: "2bw", Replay: ReplayAsync, Family: "pipedream", Params: ParamAccumulate},
	{Name: "pipemare", Replay: ReplayAsync, Family: "pipedream", Params: ParamPipeMare},
	{Name: "predict", Replay: ReplayAsync, Family: "pipedream"},
	{Name: "dc", Replay: ReplayAsync, Family: "pipedream", Params: ParamDCLambda, DCLambda: DefaultDCLambda},
	{Name: "dc-a", Replay: ReplayAsync, Family: "pipedream", Params: ParamDCLambda, DCLambda: DefaultDCALambda},
	{Name: "ef", Replay: ReplayAsync, Family: "pipedream", Params: ParamAccumulate | ParamEFLambda},
	{Name: "rpd", Replay: ReplaySampled, Family: "pipedream"},
	{Name: "localsgd", Replay: ReplayAveraging, Family: "localsgd"},
	{Name: "sync", Replay: ReplayFlush, Family: "1f1b"},
}

// Methods are the names NewMethod knows, the names specs, the command line
// and the tables' method column use.
var Methods = methodNames()

func methodNames() []string {
	names := make([]string, len(methodTable))
	for i, d := range methodTable {
		names[i] = d.Name
	}
	return names
}

// LookupMethod returns the descriptor of the method called name, and
// false (with the zero descriptor, which has no trait) for a name no
// method has.
func LookupMethod(name string) (MethodDesc, bool) {
	for _, d := range methodTable {
		if d.Name == name {
			return d, true
		}
	}
	return MethodDesc{}, false
}

// MethodNamed returns the descriptor of the method called name, or a
// settings error naming the known methods.
func MethodNamed(name string) (MethodDesc, error) {
	d, ok := LookupMethod(name)
	if !ok {
		return d, fmt.Errorf("%w: unknown method %q (known: %s)", ErrSettings, name, strings.Join(Methods, ", "))
	}
	return d, nil
}
