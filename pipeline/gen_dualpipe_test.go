package pipeline

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestDualPipeMatchesReference compares the generated DualPipe with the
// order deepseek-ai/DualPipe's dualpipe.py runs, recorded for two shapes
// (testdata/dualpipe_ref_*.txt, whose header gives the provenance): rank
// by rank, bubbles aside, cell for cell. The reference names a cell by the
// rank's phase and the phase's own microbatch count; phase 0 is the
// pipeline that starts at the rank's nearer end (the down pipeline, table
// stage r, on ranks below P/2; the up pipeline, table stage 2P-1-r,
// microbatches M/2 on, on the others), as dualpipe.py's comment on phases
// says.
func TestDualPipeMatchesReference(t *testing.T) {
	for _, sh := range []Shape{{Ranks: 4, Microbatches: 10}, {Ranks: 6, Microbatches: 12}} {
		p, m := sh.Ranks, sh.Microbatches
		path := fmt.Sprintf("testdata/dualpipe_ref_%drank_%dmb.txt", p, m)
		ref := readDualPipeReference(t, path)
		if len(ref) != p {
			t.Fatalf("%s: %d ranks, want %d", path, len(ref), p)
		}
		tb := mustGenerate(t, "dualpipe", sh)
		for r, row := range tb.Rows {
			var got []string
			for _, a := range row {
				if !a.IsBubble() {
					got = append(got, a.String())
				}
			}
			var want []string
			for _, tok := range ref[r] {
				want = append(want, dualPipeRefCell(t, tok, p, m, r))
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("P=%d M=%d rank %d:\n got %v\nwant %v", p, m, r, got, want)
			}
		}
	}
}

func readDualPipeReference(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			rows = append(rows, strings.Fields(line))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// dualPipeRefCell turns a reference token (Fp:i, Bp:i, Ip:i, Wp:i or
// Fp:i+Bq:j) of rank r into the table's cell.
func dualPipeRefCell(t *testing.T, tok string, p, m, r int) string {
	t.Helper()
	if f, b, ok := strings.Cut(tok, "+"); ok {
		fa, ba := dualPipeRefAction(t, f, p, m, r), dualPipeRefAction(t, b, p, m, r)
		return Action{Kind: OverlapFB, Stage: fa.Stage, Microbatch: fa.Microbatch,
			BackStage: ba.Stage, BackMicrobatch: ba.Microbatch}.String()
	}
	return dualPipeRefAction(t, tok, p, m, r).String()
}

func dualPipeRefAction(t *testing.T, tok string, p, m, r int) Action {
	t.Helper()
	ph, i, ok := strings.Cut(tok[1:], ":")
	phase, err1 := strconv.Atoi(ph)
	mb, err2 := strconv.Atoi(i)
	if !ok || err1 != nil || err2 != nil || phase < 0 || phase > 1 {
		t.Fatalf("bad reference token %q", tok)
	}
	down := phase == 0
	if r >= p/2 {
		down = !down
	}
	stage := r
	if !down {
		stage, mb = 2*p-1-r, m/2+mb
	}
	kinds := map[byte]Kind{'F': Forward, 'B': Backward, 'I': BackwardInput, 'W': BackwardWeight}
	return Act(kinds[tok[0]], stage, mb)
}

// dualPipeShapes are accepted shapes: P even from 2 to 10, M from the
// least allowed, 2P, to 4P.
func dualPipeShapes() []Shape {
	var out []Shape
	for p := 2; p <= 10; p += 2 {
		for _, m := range []int{2 * p, 2*p + 2, 3 * p, 4 * p} {
			if m%2 == 0 {
				out = append(out, Shape{Ranks: p, Microbatches: m})
			}
		}
	}
	return out
}

// TestDualPipeRefuses checks dualpipe.py's assertions: an even rank count,
// an even microbatch count of at least twice the ranks; and one model stage
// per rank and pipeline, as Chimera's.
func TestDualPipeRefuses(t *testing.T) {
	for _, tc := range []struct {
		sh   Shape
		want string
	}{
		{Shape{Ranks: 3, Microbatches: 12}, "even number of ranks"},
		{Shape{Ranks: 4, Microbatches: 6}, "M >= 2P = 8"},
		{Shape{Ranks: 4, Microbatches: 9}, "M even"},
		{Shape{Ranks: 4, Microbatches: 8, Chunks: 2}, "chunks must be 1"},
	} {
		_, err := Generate("dualpipe", tc.sh)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %q", tc.sh, err, tc.want)
		}
	}
}

// TestDualPipeRunsToCompletion validates every accepted shape (each
// microbatch on its route once), lowers it and runs PyTorch's lockstep
// check to the end, and writes it to PyTorch's CSV and reads it back with
// its two routes.
func TestDualPipeRunsToCompletion(t *testing.T) {
	for _, sh := range dualPipeShapes() {
		tb := mustGenerate(t, "dualpipe", sh)
		if err := tb.Validate(); err != nil {
			t.Errorf("%+v: %v", sh, err)
			continue
		}
		lowersAndRuns(t, fmt.Sprintf("%+v", sh), tb)
		var buf bytes.Buffer
		if err := WriteCSV(&buf, tb); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCSV(&buf, "dualpipe.csv")
		if err != nil {
			t.Errorf("%+v: read back: %v", sh, err)
			continue
		}
		if !tablesEqual(back, tb) {
			t.Errorf("%+v: read back routes %v %v, want %v %v", sh, back.Routes, back.MicrobatchRoute, tb.Routes, tb.MicrobatchRoute)
		}
	}
}

// TestDualPipeActivations checks the DualPipe README's activation column:
// PP + 1 activations of one stage per device, PP = P (stages of the
// model), counting an overlapped pair's forward before its backward frees
// one, as TestDualPipeVActivations counts DualPipeV's.
func TestDualPipeActivations(t *testing.T) {
	for _, sh := range dualPipeShapes() {
		tb := mustGenerate(t, "dualpipe", sh)
		peak := 0
		for _, row := range tb.Rows {
			held := 0
			for _, a := range row {
				switch a.Kind {
				case Forward:
					held++
				case OverlapFB:
					peak = max(peak, held+1)
				case Backward, BackwardWeight:
					held--
				}
				peak = max(peak, held)
			}
		}
		if want := sh.Ranks + 1; peak != want {
			t.Errorf("%+v: peak %d stage activations, want PP + 1 = %d", sh, peak, want)
		}
	}
}
