package pipeline

import "fmt"

// UpdateRule says when the optimizer steps under a schedule.
type UpdateRule uint8

const (
	// Flush: synchronous training; every stage steps once per iteration,
	// after all microbatches' backwards (GPipe, 1F1B, zero bubble, ...).
	Flush UpdateRule = iota
	// PerBackward: asynchronous PipeDream with weight stashing; a stage
	// updates its block right after each backward (docs/reference.md §1.2).
	PerBackward
	// ReplicaAveraging: LocalSGD on the pipeline; Replicas model replicas
	// each take plain SGD steps and are averaged every LocalSteps steps
	// (docs/reference.md §1.5).
	ReplicaAveraging
)

func (u UpdateRule) String() string {
	switch u {
	case Flush:
		return "flush"
	case PerBackward:
		return "per-backward"
	case ReplicaAveraging:
		return "replica-averaging"
	}
	return fmt.Sprintf("UpdateRule(%d)", uint8(u))
}

// Table is a pipeline schedule: Rows[r] is the ordered list of actions that
// rank r runs, and a zero Action in a row is a bubble. Placement[s] is the
// rank that holds stage s, so len(Placement) is the stage count.
type Table struct {
	// Family names the generator that built the table ("1f1b", ...), or is
	// empty for a table read from a file.
	Family string
	// Rows holds one row per rank.
	Rows [][]Action
	// Placement maps each stage to the rank that runs it.
	Placement []int
	// Microbatches is the number of microbatches of one iteration.
	Microbatches int
	// Update is the optimizer update rule the schedule implies.
	Update UpdateRule
	// Replicas and LocalSteps describe ReplicaAveraging: microbatch m
	// belongs to replica m mod Replicas, and replicas are averaged after
	// every round of Replicas*LocalSteps microbatches. Zero otherwise.
	Replicas, LocalSteps int
	// NOAM is the admission cap of asynchronous PipeDream (microbatches in
	// flight on stage 0); zero otherwise.
	NOAM int
	// Routes and MicrobatchRoute describe tables whose microbatches do not
	// all traverse every stage. Chimera runs two replicas of the model as
	// two pipelines: its table has stages 0..P-1 (the down pipeline) and
	// P..2P-1 (the up pipeline), and microbatch m flows through
	// Routes[MicrobatchRoute[m]] only. Both are nil when every microbatch
	// traverses stages 0..Stages()-1; RouteOf hides the difference.
	Routes          []Route
	MicrobatchRoute []int
}

// Route is the run of consecutive stages, First to Last, that a microbatch
// flows through: forward from First to Last, backward from Last to First.
type Route struct{ First, Last int }

// RouteOf returns the stages microbatch m flows through: all of them unless
// the table has Routes.
func (t *Table) RouteOf(m int) Route {
	if t.Routes == nil {
		return Route{0, t.Stages() - 1}
	}
	return t.Routes[t.MicrobatchRoute[m]]
}

// NextStage returns the stage after s on microbatch m's route (RouteOf):
// where m's forward goes from s, and where its backward comes from. It
// returns false when s is the route's last stage or not on the route, and
// for a microbatch the table's MicrobatchRoute does not know. Without
// Routes the route is every stage, so the next stage is s+1.
func (t *Table) NextStage(m, s int) (int, bool) {
	rt, ok := t.routeOf(m)
	if !ok || s < rt.First || s >= rt.Last {
		return -1, false
	}
	return s + 1, true
}

// PrevStage returns the stage before s on microbatch m's route: where m's
// forward comes from, and where its backward goes from s. It returns false
// when s is the route's first stage or not on the route, and for a
// microbatch the table's MicrobatchRoute does not know.
func (t *Table) PrevStage(m, s int) (int, bool) {
	rt, ok := t.routeOf(m)
	if !ok || s <= rt.First || s > rt.Last {
		return -1, false
	}
	return s - 1, true
}

// routeOf is RouteOf that reports a microbatch or route index out of range
// instead of panicking.
func (t *Table) routeOf(m int) (Route, bool) {
	if t.Routes == nil {
		return Route{0, t.Stages() - 1}, true
	}
	if m < 0 || m >= len(t.MicrobatchRoute) {
		return Route{}, false
	}
	k := t.MicrobatchRoute[m]
	if k < 0 || k >= len(t.Routes) {
		return Route{}, false
	}
	return t.Routes[k], true
}

// Ranks returns the number of ranks (rows).
func (t *Table) Ranks() int { return len(t.Rows) }

// Stages returns the number of stages.
func (t *Table) Stages() int { return len(t.Placement) }

// Rank returns the rank that holds stage s.
func (t *Table) Rank(s int) int { return t.Placement[s] }

// HasComms reports whether the table carries explicit communication
// actions (the compute_comms format) rather than compute only.
func (t *Table) HasComms() bool {
	_, _, ok := t.firstComm()
	return ok
}

// firstComm returns the rank and cell of the first communication action,
// rank by rank.
func (t *Table) firstComm() (r, i int, ok bool) {
	for r, row := range t.Rows {
		for i, a := range row {
			if a.Kind.IsComm() {
				return r, i, true
			}
		}
	}
	return 0, 0, false
}

// Clone returns a deep copy of t.
func (t *Table) Clone() *Table {
	c := *t
	c.Rows = make([][]Action, len(t.Rows))
	for r, row := range t.Rows {
		c.Rows[r] = append([]Action(nil), row...)
	}
	c.Placement = append([]int(nil), t.Placement...)
	c.Routes = append([]Route(nil), t.Routes...)
	c.MicrobatchRoute = append([]int(nil), t.MicrobatchRoute...)
	return &c
}

// LoopPlacement places stage s on rank s mod ranks (PyTorch's "loop").
func LoopPlacement(stages, ranks int) []int {
	p := make([]int, stages)
	for s := range p {
		p[s] = s % ranks
	}
	return p
}

// VPlacement places stages in a zig-zag over the ranks (PyTorch's "v"):
// with 2 ranks and 4 stages the ranks are 0, 1, 1, 0.
func VPlacement(stages, ranks int) []int {
	p := make([]int, stages)
	for s := range p {
		pass, pos := s/ranks, s%ranks
		if pass%2 == 0 {
			p[s] = pos
		} else {
			p[s] = ranks - 1 - pos
		}
	}
	return p
}
