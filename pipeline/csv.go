package pipeline

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ErrMalformed is wrapped by every error that rejects a schedule file or an
// action string.
var ErrMalformed = errors.New("malformed schedule")

// ParseError says where a schedule file is malformed and why. Line and Cell
// count from 1, as editors do.
type ParseError struct {
	File   string
	Line   int
	Cell   int
	Reason string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: cell %d: %s", e.File, e.Line, e.Cell, e.Reason)
}

// Unwrap makes errors.Is(err, ErrMalformed) true for every ParseError.
func (e *ParseError) Unwrap() error { return ErrMalformed }

// actionPattern is the grammar of one action in torch.distributed.pipelining
// (REFERENCE.md §3): stage index, kind, optional microbatch index, anchored
// at both ends (PyTorch anchors only the start and ignores trailing text;
// pipelab rejects it).
var actionPattern = regexp.MustCompile(`^(\d+)(F|I|B|W|UNSHARD|RESHARD|REDUCE_GRAD|SEND_F|RECV_F|SEND_B|RECV_B)(\d*)$`)

// overlapSuffix ends a compound action such as "(0F7;7B3)OVERLAP_F_B".
const overlapSuffix = ")OVERLAP_F_B"

// maxIndex bounds stage and microbatch indices so that counts derived from
// them cannot overflow.
const maxIndex = 1 << 30

// ParseAction parses one action as PyTorch writes it: "2F0", "1I3", "0W3",
// "3SEND_F1", "1RECV_B0", "0REDUCE_GRAD" or "(0F7;7B3)OVERLAP_F_B".
// Surrounding white space is ignored, as PyTorch's reader does, and an empty
// string is a bubble. Errors wrap ErrMalformed.
func ParseAction(s string) (Action, error) {
	a, reason := parseAction(s)
	if reason != "" {
		return Action{}, fmt.Errorf("pipeline: action %q: %s: %w", s, reason, ErrMalformed)
	}
	return a, nil
}

// parseAction returns the action or, when s is not one, why not.
func parseAction(s string) (Action, string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Action{}, ""
	}
	if inner, ok := strings.CutSuffix(s, overlapSuffix); ok && strings.HasPrefix(inner, "(") {
		return parseOverlap(inner[1:])
	}
	m := actionPattern.FindStringSubmatch(s)
	if m == nil {
		return Action{}, fmt.Sprintf("%q is not an action: want stage, kind, microbatch as in 2F0, 1SEND_B3, 0REDUCE_GRAD", s)
	}
	stage, err := strconv.Atoi(m[1])
	if err != nil || stage >= maxIndex {
		return Action{}, fmt.Sprintf("stage index %s is too large", m[1])
	}
	kind, err := ParseKind(m[2])
	if err != nil {
		return Action{}, err.Error()
	}
	if !kind.HasMicrobatch() {
		if m[3] != "" {
			return Action{}, fmt.Sprintf("%s takes no microbatch index, got %q", kind, s)
		}
		return Action{Kind: kind, Stage: stage, Microbatch: NoMicrobatch}, ""
	}
	if m[3] == "" {
		return Action{}, fmt.Sprintf("%s needs a microbatch index, got %q", kind, s)
	}
	mb, err := strconv.Atoi(m[3])
	if err != nil || mb >= maxIndex {
		return Action{}, fmt.Sprintf("microbatch index %s is too large", m[3])
	}
	return Act(kind, stage, mb), ""
}

// parseOverlap parses the inside of "(F;B)OVERLAP_F_B": a forward, then a
// full backward, the only pairing PyTorch's schedules emit.
func parseOverlap(inner string) (Action, string) {
	const want = "OVERLAP_F_B pairs a forward and a full backward, as in (0F7;7B3)OVERLAP_F_B"
	fwd, bwd, ok := strings.Cut(inner, ";")
	if !ok || strings.ContainsAny(bwd, ";()") || strings.ContainsAny(fwd, "()") {
		return Action{}, want
	}
	f, reason := parseAction(fwd)
	if reason != "" {
		return Action{}, reason
	}
	b, reason := parseAction(bwd)
	if reason != "" {
		return Action{}, reason
	}
	if f.Kind != Forward || b.Kind != Backward {
		return Action{}, want
	}
	return Action{Kind: OverlapFB, Stage: f.Stage, Microbatch: f.Microbatch, BackStage: b.Stage, BackMicrobatch: b.Microbatch}, ""
}

// cellPos is where a cell sits in a file, for error messages.
type cellPos struct{ line, cell int }

// ReadCSV reads a schedule in PyTorch's CSV format (REFERENCE.md §3): no
// header, line i holds rank i's actions in order, an empty cell is a bubble,
// lines end in "\n" or "\r\n" and may differ in length. As with Python's csv
// reader, an empty line is a rank with no actions.
//
// The placement is inferred from the cells (every stage must appear on
// exactly one rank, and stages are numbered 0..S-1), and so is the
// microbatch count (microbatches are numbered 0..M-1). So are the routes:
// the stages a microbatch's actions name must be one contiguous range, and
// when some microbatch does not name every stage (Chimera's two
// pipelines), each distinct range becomes a Route and MicrobatchRoute says
// which one each microbatch takes; otherwise Routes stays nil. name is used
// in error messages only. Every rejection is a *ParseError naming name, a
// line and a cell, and wraps ErrMalformed.
func ReadCSV(r io.Reader, name string) (*Table, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("pipeline: read %s: %w", name, err)
	}
	malformed := func(p cellPos, format string, args ...any) error {
		return &ParseError{File: name, Line: p.line, Cell: p.cell, Reason: fmt.Sprintf(format, args...)}
	}
	if len(data) == 0 {
		return nil, malformed(cellPos{1, 1}, "empty file: no ranks")
	}
	lines := strings.Split(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	t := &Table{Rows: make([][]Action, len(lines))}
	for i, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			t.Rows[i] = []Action{}
			continue
		}
		cells := strings.Split(line, ",")
		row := make([]Action, len(cells))
		for j, cell := range cells {
			p := cellPos{i + 1, j + 1}
			switch {
			case cell == `""`:
				// Python's csv writer quotes a row's only cell when it is empty.
				continue
			case strings.Contains(cell, `"`):
				return nil, malformed(p, "quoted cell %s: no action needs quoting", strconv.Quote(cell))
			case strings.Contains(cell, "\r"):
				return nil, malformed(p, "carriage return inside a line: lines end in \\n or \\r\\n")
			}
			a, reason := parseAction(cell)
			if reason != "" {
				return nil, malformed(p, "%s", reason)
			}
			row[j] = a
		}
		t.Rows[i] = row
	}
	if err := inferShape(t, name); err != nil {
		return nil, err
	}
	return t, nil
}

// inferShape fills in t's Placement, Microbatches and routes from its
// cells.
func inferShape(t *Table, name string) error {
	stageAt := map[int]cellPos{} // first cell naming each stage
	stageRank := map[int]int{}   // rank of each stage
	mbAt := map[int]cellPos{}    // first cell naming each microbatch
	var maxStage, maxMB = -1, -1
	var maxStageAt, maxMBAt cellPos
	for r, row := range t.Rows {
		for i, a := range row {
			p := cellPos{r + 1, i + 1}
			for _, sub := range subActions(a) {
				if prev, seen := stageAt[sub.Stage]; seen && stageRank[sub.Stage] != r {
					return &ParseError{File: name, Line: p.line, Cell: p.cell, Reason: fmt.Sprintf(
						"stage %d is on rank %d here and on rank %d at line %d, cell %d: a stage lives on one rank",
						sub.Stage, r, stageRank[sub.Stage], prev.line, prev.cell)}
				} else if !seen {
					stageAt[sub.Stage], stageRank[sub.Stage] = p, r
				}
				if sub.Stage > maxStage {
					maxStage, maxStageAt = sub.Stage, p
				}
				if !sub.Kind.HasMicrobatch() {
					continue
				}
				if _, seen := mbAt[sub.Microbatch]; !seen {
					mbAt[sub.Microbatch] = p
				}
				if sub.Microbatch > maxMB {
					maxMB, maxMBAt = sub.Microbatch, p
				}
			}
		}
	}
	if maxStage < 0 {
		return &ParseError{File: name, Line: 1, Cell: 1, Reason: "no actions in the file"}
	}
	for s := 0; s < maxStage; s++ {
		if _, ok := stageAt[s]; !ok {
			return &ParseError{File: name, Line: maxStageAt.line, Cell: maxStageAt.cell, Reason: fmt.Sprintf(
				"stage %d appears but stage %d appears in no cell: stages are numbered 0..S-1", maxStage, s)}
		}
	}
	for m := 0; m < maxMB; m++ {
		if _, ok := mbAt[m]; !ok {
			return &ParseError{File: name, Line: maxMBAt.line, Cell: maxMBAt.cell, Reason: fmt.Sprintf(
				"microbatch %d appears but microbatch %d appears in no cell: microbatches are numbered 0..M-1", maxMB, m)}
		}
	}
	t.Placement = make([]int, maxStage+1)
	for s := range t.Placement {
		t.Placement[s] = stageRank[s]
	}
	t.Microbatches = maxMB + 1
	return inferRoutes(t, name)
}

// inferRoutes fills in t's Routes and MicrobatchRoute when the cells show
// that microbatches do not all traverse every stage, as in Chimera's two
// pipelines: the stages a microbatch's actions name must be one contiguous
// range, and each distinct range becomes a Route, in order of first and
// last stage. When every microbatch names every stage, the table keeps nil
// Routes, as PyTorch's schedules have. A microbatch that skips a stage
// inside its range is malformed.
func inferRoutes(t *Table, name string) error {
	n := t.Microbatches
	// Group, by microbatch, the stages its actions name (a counting sort;
	// inferShape made sure no group is empty).
	start := make([]int, n+1)
	forEachStep(t, func(_ cellPos, sub Action) { start[sub.Microbatch+1]++ })
	for m := range n {
		start[m+1] += start[m]
	}
	stages, fill := make([]int, start[n]), slices.Clone(start[:n])
	forEachStep(t, func(_ cellPos, sub Action) {
		stages[fill[sub.Microbatch]] = sub.Stage
		fill[sub.Microbatch]++
	})
	routeOf := make([]Route, n)
	everyStage := true
	for m := range n {
		group := stages[start[m]:start[m+1]]
		slices.Sort(group)
		for i := 1; i < len(group); i++ {
			if group[i] > group[i-1]+1 {
				return skippedStage(t, name, m, group[i-1], group[i])
			}
		}
		routeOf[m] = Route{group[0], group[len(group)-1]}
		everyStage = everyStage && routeOf[m] == Route{0, t.Stages() - 1}
	}
	if everyStage {
		return nil
	}
	t.Routes = slices.Clone(routeOf)
	slices.SortFunc(t.Routes, compareRoutes)
	t.Routes = slices.Clip(slices.Compact(t.Routes))
	t.MicrobatchRoute = make([]int, n)
	for m, rt := range routeOf {
		t.MicrobatchRoute[m], _ = slices.BinarySearchFunc(t.Routes, rt, compareRoutes)
	}
	return nil
}

// compareRoutes orders routes by first stage, then last.
func compareRoutes(a, b Route) int {
	return cmp.Or(cmp.Compare(a.First, b.First), cmp.Compare(a.Last, b.Last))
}

// forEachStep calls visit with the cell and each single action of t that
// names a microbatch: a step of that microbatch along its stages.
func forEachStep(t *Table, visit func(cellPos, Action)) {
	for r, row := range t.Rows {
		for i, a := range row {
			for _, sub := range subActions(a) {
				if sub.Kind.HasMicrobatch() {
					visit(cellPos{r + 1, i + 1}, sub)
				}
			}
		}
	}
}

// skippedStage reports microbatch m, whose actions name stages below and
// above but none between, at the first cell naming m on stage above.
func skippedStage(t *Table, name string, m, below, above int) error {
	var at cellPos
	forEachStep(t, func(p cellPos, sub Action) {
		if at.line == 0 && sub.Microbatch == m && sub.Stage == above {
			at = p
		}
	})
	return &ParseError{File: name, Line: at.line, Cell: at.cell, Reason: fmt.Sprintf(
		"microbatch %d runs on stages %d and %d but on none between (no action of it names stage %d): "+
			"a microbatch flows through one contiguous range of stages", m, below, above, below+1)}
}

// subActions returns the single actions a stands for: the forward and the
// backward of an OVERLAP_F_B, a itself otherwise, nothing for a bubble.
func subActions(a Action) []Action {
	switch a.Kind {
	case Bubble:
		return nil
	case OverlapFB:
		return []Action{F(a.Stage, a.Microbatch), B(a.BackStage, a.BackMicrobatch)}
	}
	return []Action{a}
}

// WriteCSV writes t in PyTorch's CSV format, byte for byte as Python's csv
// module writes it with its defaults: ',' between cells, "\r\n" after every
// row, a bubble as an empty cell, and a row whose only cell is a bubble as
// `""` (Python quotes a lone empty field so that the row is not blank).
func WriteCSV(w io.Writer, t *Table) error {
	bw := bufio.NewWriter(w)
	var line bytes.Buffer
	for _, row := range t.Rows {
		line.Reset()
		if len(row) == 1 && row[0].IsBubble() {
			line.WriteString(`""`)
		}
		for i, a := range row {
			if i > 0 {
				line.WriteByte(',')
			}
			line.WriteString(a.String())
		}
		line.WriteString("\r\n")
		if _, err := bw.Write(line.Bytes()); err != nil {
			return fmt.Errorf("pipeline: write schedule CSV: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("pipeline: write schedule CSV: %w", err)
	}
	return nil
}
