package pipeline

import (
	"bytes"
	"os"
	"testing"
)

// The functions below re-compute, independently of the generators,
// PyTorch's pipeline_order for each schedule class PyTorch has, by
// transliterating the loops of torch/distributed/pipelining/schedules.py
// (ScheduleGPipe and Schedule1F1B's _get_pipeline_order before
// _add_reduce_grad, the _calculate_single_rank_operations of the others,
// _get_1f1b_rank_ops, _get_warmup_ops and _add_bubbles_to_actions); a zero
// Action is PyTorch's None. They are the expected values of
// TestTorchOrderMatchesPyTorch.

// pyGPipe is ScheduleGPipe's pipeline_order.
func pyGPipe(p, m int) [][]Action {
	order := make([][]Action, p)
	for r := range order {
		a := make([]Action, r)
		for mb := range m {
			a = append(a, F(r, mb))
		}
		a = append(a, make([]Action, 3*(p-1-r))...)
		for mb := range m {
			a = append(a, B(r, mb))
		}
		order[r] = a
	}
	return order
}

// py1F1B is Schedule1F1B's pipeline_order as written, which numbers the
// last rank's forwards from 1 (its forward_mb starts at 0 and is
// incremented before the first steady-state forward).
func py1F1B(p, m int) [][]Action {
	order := make([][]Action, p)
	for r := range order {
		a := make([]Action, r)
		numForward, forwardMB := p-1-r, 0
		for i := range numForward {
			a = append(a, F(r, i))
			forwardMB = i
		}
		a = append(a, make([]Action, max(0, 2*(p-1-r)))...)
		backwardMB := 0
		for remaining := m - numForward; remaining > 0; remaining-- {
			forwardMB++
			a = append(a, F(r, forwardMB), B(r, backwardMB))
			backwardMB++
		}
		for ; backwardMB < m; backwardMB++ {
			a = append(a, Action{}, B(r, backwardMB))
		}
		order[r] = a
	}
	return order
}

// pyLoopedBFS is ScheduleLoopedBFS's pipeline_order.
func pyLoopedBFS(p, v, m int) [][]Action {
	order := make([][]Action, p)
	for r := range order {
		a := make([]Action, r)
		for c := range v {
			for mb := range m {
				a = append(a, F(c*p+r, mb))
			}
		}
		a = append(a, make([]Action, 2*(p-1-r))...)
		for c := v - 1; c >= 0; c-- {
			for mb := m - 1; mb >= 0; mb-- {
				a = append(a, B(c*p+r, mb))
			}
		}
		order[r] = a
	}
	return order
}

// py1F1BRankOps is _get_1f1b_rank_ops.
func py1F1BRankOps(v, p, warmup, fwdBwd, cooldown, r int, fwdStage, bwdStage func(int) int, num1F1B int, zb bool) []Action {
	fwd, bwd, wgt := map[int]int{}, map[int]int{}, map[int]int{}
	next := func(c map[int]int, s int) int { n := c[s]; c[s]++; return n }
	ops := make([]Action, r)
	post := v*p + 2*(p-1-r) - (warmup + r)
	if zb {
		post = p - r - 1
	}
	backward := Backward
	if zb {
		backward = BackwardInput
	}
	var backwardOps []int
	weights := 0
	weight := func() {
		s := bwdStage(backwardOps[weights])
		ops = append(ops, W(s, next(wgt, s)))
		weights++
	}
	for op := range warmup + fwdBwd + cooldown {
		switch {
		case op < warmup:
			s := fwdStage(op)
			ops = append(ops, F(s, next(fwd, s)))
			if op == warmup-1 {
				ops = append(ops, make([]Action, max(0, post))...)
			}
			continue
		case op < warmup+fwdBwd:
			s := fwdStage(op)
			ops = append(ops, F(s, next(fwd, s)))
		default:
			if !zb {
				ops = append(ops, Action{})
			}
		}
		s := bwdStage(op)
		ops = append(ops, Act(backward, s, next(bwd, s)))
		backwardOps = append(backwardOps, op)
		if zb && op-warmup >= num1F1B {
			weight()
		}
	}
	for zb && weights < len(backwardOps) {
		weight()
	}
	return ops
}

// pyInterleaved is ScheduleInterleaved1F1B's pipeline_order (zb false) or
// ScheduleInterleavedZeroBubble's before _add_bubbles_to_actions (zb true).
func pyInterleaved(p, v, m int, zb bool) [][]Action {
	rounds := max(1, m/p)
	perRound := m / rounds
	factor := 2
	if zb {
		factor = 1
	}
	order := make([][]Action, p)
	for r := range order {
		warmup := min((v-1)*perRound+factor*(p-1-r), m*v)
		fwdBwd := v*m - warmup
		fwdStage := func(step int) int { return (step/perRound%v)*p + r }
		bwdStage := func(step int) int { return (v-1-(step-warmup)/perRound%v)*p + r }
		num1F1B := 0
		if zb {
			num1F1B = r
		}
		order[r] = py1F1BRankOps(v, p, warmup, fwdBwd, v*m-fwdBwd, r, fwdStage, bwdStage, num1F1B, zb)
	}
	return order
}

// pyAddBubbles is ScheduleInterleavedZeroBubble._add_bubbles_to_actions.
func pyAddBubbles(t *testing.T, actions [][]Action, stages int) [][]Action {
	seen := map[Action]bool{}
	needBubble := func(a Action) bool {
		switch a.Kind {
		case Forward:
			return a.Stage != 0 && !seen[F(a.Stage-1, a.Microbatch)]
		case Backward:
			if a.Stage == stages-1 {
				return !seen[F(a.Stage, a.Microbatch)]
			}
			return !seen[B(a.Stage+1, a.Microbatch)]
		}
		return false
	}
	result := make([][]Action, len(actions))
	next := make([]int, len(actions))
	for round := 0; ; round++ {
		if round > 100000 {
			t.Fatal("_add_bubbles_to_actions does not finish")
		}
		stop := true
		var ran []Action
		for r, row := range actions {
			if next[r] >= len(row) {
				continue
			}
			stop = false
			a := row[next[r]]
			switch {
			case a.IsBubble():
				next[r]++
				result[r] = append(result[r], Action{})
			case needBubble(a):
				result[r] = append(result[r], Action{})
			default:
				result[r] = append(result[r], a)
				ran = append(ran, a)
				next[r]++
			}
		}
		for _, a := range ran {
			seen[a] = true
		}
		if stop {
			return result
		}
	}
}

// pyZBV is ScheduleZBVZeroBubble's pipeline_order.
func pyZBV(p, m int) [][]Action {
	order := make([][]Action, p)
	for r := range order {
		n := max(2*p-1, m)
		a := make([]Action, r)
		s0, s1 := r, 2*p-1-r
		var f0, f1, b0, b1 int
		for range 2*(p-r) - 1 {
			a = append(a, F(s0, f0))
			f0++
		}
		for range r {
			a = append(a, F(s1, f1), F(s0, f0))
			f1++
			f0++
		}
		for range p - r {
			a = append(a, F(s1, f1), I(s1, b1), W(s1, b1))
			f1++
			b1++
		}
		for f1 < f0 || f0 < n {
			if f0 < n {
				a = append(a, F(s0, f0))
				f0++
			}
			a = append(a, I(s0, b0), W(s0, b0), F(s1, f1), I(s1, b1), W(s1, b1))
			b0++
			f1++
			b1++
		}
		w0, w1 := b0, b1
		for range r {
			a = append(a, I(s0, b0), I(s1, b1))
			b0++
			b1++
		}
		for range p - r {
			a = append(a, I(s0, b0), W(s0, w0))
			b0++
			w0++
		}
		for ; w1 < b1; w1++ {
			a = append(a, W(s1, w1))
		}
		for ; w0 < b0; w0++ {
			a = append(a, W(s0, w0))
		}
		for i, x := range a {
			if !x.IsBubble() && x.Microbatch >= m {
				a[i] = Action{}
			}
		}
		order[r] = a
	}
	return order
}

// pyDualPipeV is ScheduleDualPipeV's pipeline_order.
func pyDualPipeV(p, m int) [][]Action {
	order := make([][]Action, p)
	for r := range order {
		s0, s1 := r, 2*p-1-r
		counter := map[[2]int]int{} // (stage, kind) -> next microbatch
		var weightQueue [][2]int    // (stage, microbatch)
		var a []Action
		countBackward := func(s int) {
			counter[[2]int{s, int(BackwardInput)}]++
			counter[[2]int{s, int(BackwardWeight)}]++
		}
		add := func(s int, k Kind) {
			key := [2]int{s, int(k)}
			if k == Backward {
				key = [2]int{s, int(BackwardInput)}
			}
			mb := counter[key]
			a = append(a, Act(k, s, mb))
			if k == Backward {
				countBackward(s)
				return
			}
			if k == BackwardInput {
				weightQueue = append(weightQueue, [2]int{s, mb})
			}
			counter[key] = mb + 1
		}
		overlap := func(fs, bs int) {
			fmb, bmb := counter[[2]int{fs, int(Forward)}], counter[[2]int{bs, int(BackwardInput)}]
			a = append(a, Action{Kind: OverlapFB, Stage: fs, Microbatch: fmb, BackStage: bs, BackMicrobatch: bmb})
			counter[[2]int{fs, int(Forward)}] = fmb + 1
			countBackward(bs)
		}
		weight := func() {
			if len(weightQueue) == 0 {
				return
			}
			w := weightQueue[0]
			weightQueue = weightQueue[1:]
			a = append(a, W(w[0], w[1]))
			counter[[2]int{w[0], int(BackwardWeight)}]++
		}
		for range (p - r - 1) * 2 {
			add(s0, Forward)
		}
		for range r + 1 {
			add(s0, Forward)
			add(s1, Forward)
		}
		for range p - r - 1 {
			add(s1, BackwardInput)
			weight()
			add(s1, Forward)
		}
		for i := range m - 2*p + r + 1 {
			if i == 0 && r == p-1 {
				add(s0, Forward)
				add(s1, Backward)
			} else {
				overlap(s0, s1)
			}
			overlap(s1, s0)
		}
		for range p - r - 1 {
			add(s1, Backward)
			overlap(s1, s0)
		}
		zb := false
		kind := func() Kind {
			if zb {
				return BackwardInput
			}
			return Backward
		}
		step6 := r + 1
		for i := range step6 {
			if i == step6/2 && r%2 == 1 {
				zb = true
			}
			add(s1, kind())
			if i == step6/2 && r%2 == 0 {
				zb = true
			}
			add(s0, kind())
		}
		for range p - r - 1 {
			weight()
			add(s0, kind())
		}
		for range r + 1 {
			weight()
		}
		order[r] = a
	}
	return order
}

// csvOf is a table's CSV as WriteCSV writes it.
func csvOf(t *testing.T, rows [][]Action) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteCSV(&buf, &Table{Rows: rows}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestTorchOrderMatchesPyTorch compares, cell for cell, the CSV of each
// generated family laid out by TorchOrder with PyTorch's pipeline_order
// for the same shape, re-computed above from PyTorch's own rules. The one
// difference kept on purpose is Schedule1F1B's last rank, whose forwards
// PyTorch numbers 1..M: there pipelab keeps 0..M-1, the order every other
// rank and the schedule itself need (docs/csv.md), and the expected rows
// are renumbered accordingly.
func TestTorchOrderMatchesPyTorch(t *testing.T) {
	type shape struct{ p, v, m int }
	tests := []struct {
		family string
		shapes []shape
		want   func(t *testing.T, s shape) [][]Action
	}{
		{"gpipe", []shape{{1, 1, 1}, {2, 1, 3}, {4, 1, 8}, {4, 1, 2}},
			func(_ *testing.T, s shape) [][]Action { return pyGPipe(s.p, s.m) }},
		{"1f1b", []shape{{1, 1, 3}, {2, 1, 2}, {4, 1, 4}, {4, 1, 7}, {3, 1, 9}},
			func(_ *testing.T, s shape) [][]Action {
				rows := py1F1B(s.p, s.m)
				for i, a := range rows[s.p-1] {
					if a.Kind == Forward {
						rows[s.p-1][i].Microbatch-- // PyTorch's F1..FM on the last rank
					}
				}
				return rows
			}},
		{"looped-bfs", []shape{{2, 1, 3}, {2, 2, 4}, {3, 3, 5}, {4, 2, 8}},
			func(_ *testing.T, s shape) [][]Action { return pyLoopedBFS(s.p, s.v, s.m) }},
		{"interleaved-1f1b", []shape{{2, 2, 4}, {4, 2, 3}, {4, 2, 8}, {4, 2, 10}, {4, 2, 15}, {3, 3, 8}, {2, 4, 6}, {4, 1, 5}},
			func(_ *testing.T, s shape) [][]Action { return pyInterleaved(s.p, s.v, s.m, false) }},
		{"interleaved-zb", []shape{{2, 2, 8}, {2, 2, 2}, {4, 2, 4}, {4, 2, 10}, {3, 2, 6}, {2, 3, 6}, {3, 2, 2}},
			func(t *testing.T, s shape) [][]Action {
				return pyAddBubbles(t, pyInterleaved(s.p, s.v, s.m, true), s.p*s.v)
			}},
		{"zb-v", []shape{{1, 2, 1}, {2, 2, 2}, {2, 2, 5}, {4, 2, 3}, {4, 2, 7}, {4, 2, 12}},
			func(_ *testing.T, s shape) [][]Action { return pyZBV(s.p, s.m) }},
		{"dualpipev", []shape{{1, 2, 2}, {2, 2, 4}, {2, 2, 7}, {4, 2, 8}, {4, 2, 10}, {3, 2, 9}},
			func(_ *testing.T, s shape) [][]Action { return pyDualPipeV(s.p, s.m) }},
	}
	for _, tc := range tests {
		for _, s := range tc.shapes {
			tb := mustGenerate(t, tc.family, Shape{Ranks: s.p, Chunks: s.v, Microbatches: s.m})
			got, want := csvOf(t, TorchOrder(tb).Rows), csvOf(t, tc.want(t, s))
			if got != want {
				t.Errorf("%s P=%d V=%d M=%d:\n got %q\nwant %q (PyTorch's pipeline_order)", tc.family, s.p, s.v, s.m, got, want)
			}
		}
	}
}

// TestTorchOrderDualPipeVArtifact compares "pipelab schedule --kind
// dualpipev --stages 4 --chunks 2 --microbatches 10 --format csv", the
// generated table laid out by TorchOrder and written by WriteCSV, with
// PyTorch's own DualPipeV artifact (testdata/torch, test_csv_compare), byte
// for byte but for the line ends: the artifact was saved with "\n".
func TestTorchOrderDualPipeVArtifact(t *testing.T) {
	want, err := os.ReadFile(fixtureDualPipeV)
	if err != nil {
		t.Fatal(err)
	}
	tb := mustGenerate(t, "dualpipev", Shape{Ranks: 4, Chunks: 2, Microbatches: 10})
	got := csvOf(t, TorchOrder(tb).Rows)
	if got != string(bytes.ReplaceAll(want, []byte("\n"), []byte("\r\n"))) {
		t.Errorf("dualpipev P=4 M=10:\n got %q\nwant %q", got, want)
	}
}

// TestTorchOrderKeepsActions checks that TorchOrder moves bubbles only:
// every rank runs the same actions in the same order, so lowering without
// bubbles and stepping give what the generated table gives.
func TestTorchOrderKeepsActions(t *testing.T) {
	for _, f := range Families() {
		for _, sh := range []Shape{{Ranks: 2, Microbatches: 4}, {Ranks: 4, Microbatches: 8}, {Ranks: 3, Microbatches: 10}} {
			tb, err := Generate(f.Name, sh)
			if err != nil {
				continue
			}
			torch := TorchOrder(tb)
			for r := range tb.Rows {
				if got, want := withoutBubbles(torch.Rows[r]), withoutBubbles(tb.Rows[r]); !rowsEqual([][]Action{got}, [][]Action{want}) {
					t.Errorf("%s %+v rank %d: TorchOrder changed the actions: %v, want %v", f.Name, sh, r, got, want)
				}
			}
			a, errA := Lower(DropBubbles(tb))
			b, errB := Lower(DropBubbles(torch))
			if errA != nil || errB != nil {
				t.Fatalf("%s %+v: %v, %v", f.Name, sh, errA, errB)
			}
			sa, errA := Lockstep(a)
			sb, errB := Lockstep(b)
			if errA != nil || errB != nil || sa != sb {
				t.Errorf("%s %+v: lockstep %d (%v) generated, %d (%v) in PyTorch's layout", f.Name, sh, sa, errA, sb, errB)
			}
		}
	}
}
