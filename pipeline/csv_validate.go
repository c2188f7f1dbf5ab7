package pipeline

import "fmt"

// The rules ValidateCSV enforces, as its messages name them. All but
// ruleOnce are those of PyTorch's _validate_schedule (docs/reference.md §3).
const (
	ruleForwardFirst = "a B or I comes after the F of its stage and microbatch"
	ruleInputFirst   = "a W comes after the I of its stage and microbatch"
	ruleOneBackward  = "a microbatch is backwarded on a stage by one B or by one I and one W, not both"
	ruleOnce         = "each of F, B, I and W runs at most once per stage and microbatch"
	ruleForwards     = "every stage forwards every microbatch that runs on it"
	ruleWeights      = "a stage runs as many W as I"
	ruleBackwards    = "every stage backwards every microbatch it forwards"
	ruleRanks        = "the file has one line per rank of the pipeline group"
)

// ValidateRanks checks that a table read by ReadCSV from the file name has
// the ranks declared, one line each, as PyTorch's _validate_schedule checks
// a schedule against its pipeline group's size ("Schedule has incorrect
// number of ranks - expected N, actual M"). ReadCSV takes the rank count
// from the lines, so a file missing its last ranks' lines reads as a
// smaller pipeline; this is the check that tells. The error is a
// *ParseError wrapping ErrMalformed at the first line that should not be
// there, or the line after the last, where a missing rank's line belongs.
func ValidateRanks(t *Table, name string, ranks int) error {
	got := t.Ranks()
	switch {
	case ranks <= 0:
		return fmt.Errorf("%s: %d ranks declared: a pipeline has at least one", name, ranks)
	case got < ranks:
		missing := fmt.Sprintf("rank %d has no line", got)
		if ranks-got > 1 {
			missing = fmt.Sprintf("ranks %d to %d have no line", got, ranks-1)
		}
		return malformedAt(name, cellPos{got + 1, 1},
			"the schedule has %d ranks (one per line), expected %d: %s (rule: %s)", got, ranks, missing, ruleRanks)
	case got > ranks:
		return malformedAt(name, cellPos{ranks + 1, 1},
			"the schedule has %d ranks (one per line), expected %d: line %d is rank %d, beyond the last (rule: %s)", got, ranks, ranks+1, ranks, ruleRanks)
	}
	return nil
}

// ValidateCSV checks a table read by ReadCSV from the file name against the
// rules PyTorch's loader checks before it lowers a schedule
// (_validate_schedule), reading each rank's row from its first cell on:
//   - a B or an I of a stage and microbatch comes after its F, and a W after
//     its I;
//   - a microbatch is backwarded on a stage by a B or by an I and a W, not
//     by both;
//   - every stage forwards and backwards every microbatch (of its route, in
//     a table with Routes), and runs as many W as I.
//
// ReadCSV has already checked that every stage lives on one rank. pipelab
// adds one rule PyTorch leaves to its runtime: an F, B, I or W appears at
// most once per stage and microbatch (PyTorch counts distinct microbatches,
// so it would accept a repeated F and run it twice). Transfers and the
// other kinds are not checked, as in PyTorch.
//
// The first broken rule is returned as a *ParseError wrapping ErrMalformed:
// the line and cell of the offending action, or for a count, the cell of
// the action left without its partner (an F never backwarded, an I without
// its W) or the stage's first cell; the reason names the rule.
func ValidateCSV(t *Table, name string) error {
	if t.Microbatches == 0 {
		return malformedAt(name, cellPos{t.Placement[0] + 1, firstCell(t, 0) + 1},
			"no F, B, I or W names a microbatch: stage 0 forwards none (rule: %s)", ruleForwards)
	}
	c := cellLog{at: map[Action]int{}, count: make([][computeKinds]int, t.Stages())}
	for r, row := range t.Rows {
		for i, a := range row {
			for _, sub := range subActions(a) {
				if !sub.Kind.IsCompute() {
					continue
				}
				if reason := c.record(sub, i); reason != "" {
					return malformedAt(name, cellPos{r + 1, i + 1}, "%s", reason)
				}
			}
		}
	}
	return c.complete(t, name)
}

// cellLog records the cell (counted from 0) of every single compute action
// seen so far and counts them per stage and kind. It holds one entry per
// action of the file, whatever its stage and microbatch numbers, so that a
// file cannot make it large without being as large itself.
type cellLog struct {
	at    map[Action]int
	count [][computeKinds]int // by stage, then Kind.slot
}

// cell returns the cell of the action of kind k on (s, m), or -1.
func (c *cellLog) cell(k Kind, s, m int) int {
	if i, ok := c.at[Act(k, s, m)]; ok {
		return i
	}
	return -1
}

// record notes a single compute action at cell i and returns the rule it
// breaks, if any, with what the cell holds.
func (c *cellLog) record(a Action, i int) string {
	s, m := a.Stage, a.Microbatch
	seen := func(k Kind) bool { return c.cell(k, s, m) >= 0 }
	at := func(k Kind) int { return c.cell(k, s, m) + 1 }
	switch {
	case seen(a.Kind):
		return fmt.Sprintf("%s again: cell %d has it already (rule: %s)", a, at(a.Kind), ruleOnce)
	case (a.Kind == Backward || a.Kind == BackwardInput) && !seen(Forward):
		return fmt.Sprintf("%s before %s, or without it (rule: %s)", a, F(s, m), ruleForwardFirst)
	case a.Kind == BackwardWeight && !seen(BackwardInput) && seen(Backward):
		// PyTorch's own test_send_recv lowers such an order (its lowering
		// and simulator never validate), but its loader refuses it.
		return fmt.Sprintf("%s after %s at cell %d, which ran the whole backward: %s has no %s (rule: %s)",
			a, B(s, m), at(Backward), a, I(s, m), ruleInputFirst)
	case a.Kind == BackwardWeight && !seen(BackwardInput):
		return fmt.Sprintf("%s before %s, or without it (rule: %s)", a, I(s, m), ruleInputFirst)
	case a.Kind == Backward && seen(BackwardInput):
		return fmt.Sprintf("%s after %s at cell %d (rule: %s)", a, I(s, m), at(BackwardInput), ruleOneBackward)
	case a.Kind == BackwardInput && seen(Backward):
		return fmt.Sprintf("%s after %s at cell %d (rule: %s)", a, B(s, m), at(Backward), ruleOneBackward)
	}
	c.at[Act(a.Kind, s, m)] = i
	c.count[s][a.Kind.slot()]++
	return ""
}

// complete checks the counts of every stage, in stage order, as PyTorch
// does once it has read every row: forwards first, then I against W, then
// backwards. The order rules make every B, I and W of a stage follow its F,
// every W its I, and no microbatch have both a B and an I, so comparing
// counts finds every stage that misses something; only then are its
// microbatches searched for the first one that does.
func (c *cellLog) complete(t *Table, name string) error {
	want := microbatchesPerStage(t)
	for s := range t.Stages() {
		line := t.Placement[s] + 1
		n := c.count[s]
		forwards, backwards := n[Forward.slot()], n[Backward.slot()]+n[BackwardInput.slot()]
		inputs, weights := n[BackwardInput.slot()], n[BackwardWeight.slot()]
		switch {
		case forwards < want[s]:
			m := c.firstOnStage(t, s, func(m int) bool { return c.cell(Forward, s, m) < 0 })
			return malformedAt(name, cellPos{line, firstCell(t, s) + 1},
				"stage %d forwards %d of its %d microbatches: microbatch %d has no %s (rule: %s)",
				s, forwards, want[s], m, F(s, m), ruleForwards)
		case inputs > weights:
			m := c.firstOnStage(t, s, func(m int) bool {
				return c.cell(BackwardInput, s, m) >= 0 && c.cell(BackwardWeight, s, m) < 0
			})
			return malformedAt(name, cellPos{line, c.cell(BackwardInput, s, m) + 1},
				"%s has no %s: stage %d runs %d I but %d W (rule: %s)", I(s, m), W(s, m), s, inputs, weights, ruleWeights)
		case backwards < forwards:
			m := c.firstOnStage(t, s, func(m int) bool {
				return c.cell(Forward, s, m) >= 0 && c.cell(Backward, s, m) < 0 && c.cell(BackwardInput, s, m) < 0
			})
			return malformedAt(name, cellPos{line, c.cell(Forward, s, m) + 1},
				"%s is never backwarded (no %s, nor %s and %s): stage %d backwards %d of its %d microbatches (rule: %s)",
				F(s, m), B(s, m), I(s, m), W(s, m), s, backwards, want[s], ruleBackwards)
		}
	}
	return nil
}

// firstOnStage returns the first microbatch running on stage s for which
// missing is true, or -1.
func (c *cellLog) firstOnStage(t *Table, s int, missing func(int) bool) int {
	for m := range t.Microbatches {
		if rt := t.RouteOf(m); s >= rt.First && s <= rt.Last && missing(m) {
			return m
		}
	}
	return -1
}

// microbatchesPerStage returns, per stage, how many microbatches run on it:
// all of them, or in a table with Routes those of the route through it.
func microbatchesPerStage(t *Table) []int {
	want := make([]int, t.Stages())
	if t.Routes == nil {
		for s := range want {
			want[s] = t.Microbatches
		}
		return want
	}
	perRoute := make([]int, len(t.Routes))
	for _, k := range t.MicrobatchRoute {
		perRoute[k]++
	}
	for k, rt := range t.Routes {
		for s := rt.First; s <= rt.Last; s++ {
			want[s] += perRoute[k]
		}
	}
	return want
}

// firstCell returns the index in its rank's row of the first action that
// names stage s (0 when none does, for a stage that only a REDUCE_GRAD,
// UNSHARD or RESHARD names).
func firstCell(t *Table, s int) int {
	for i, a := range t.Rows[t.Placement[s]] {
		for _, sub := range subActions(a) {
			if !sub.IsBubble() && sub.Stage == s {
				return i
			}
		}
	}
	return 0
}
