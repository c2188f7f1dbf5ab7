package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// torchFixtures holds the schedule files of PyTorch's test_schedule.py
// (ScheduleInterleavedZeroBubble, 2 ranks, 2 stages per rank, 8
// microbatches, before and after lowering; ScheduleDualPipeV, 4 ranks, 10
// microbatches; docs/reference.md §3, provenance in its README.md).
const torchFixtures = "testdata/torch"

var (
	fixtureCompute   = filepath.Join(torchFixtures, "zb1p_2rank_2stagep_compute.csv")
	fixtureComms     = filepath.Join(torchFixtures, "zb1p_2rank_2stagep_comms.csv")
	fixtureDualPipeV = filepath.Join(torchFixtures, "dualpipev_4rank_10mb.csv")
)

// readCSVFile reads a schedule file or fails the test.
func readCSVFile(t testing.TB, path string) *Table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tb, err := ReadCSV(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestParseAction(t *testing.T) {
	// Examples from docs/reference.md §3 and PyTorch's _Action.from_str, which
	// strips white space and reads an empty string as no action.
	tests := []struct {
		in   string
		want Action
		out  string // the action as WriteCSV writes it
	}{
		{"2F0", F(2, 0), "2F0"},
		{"1I3", I(1, 3), "1I3"},
		{"0W3", W(0, 3), "0W3"},
		{"0B12", B(0, 12), "0B12"},
		{"3SEND_F1", Act(SendF, 3, 1), "3SEND_F1"},
		{"1RECV_B0", Act(RecvB, 1, 0), "1RECV_B0"},
		{"2RECV_F7", Act(RecvF, 2, 7), "2RECV_F7"},
		{"0SEND_B2", Act(SendB, 0, 2), "0SEND_B2"},
		{"0REDUCE_GRAD", Action{Kind: ReduceGrad, Stage: 0, Microbatch: NoMicrobatch}, "0REDUCE_GRAD"},
		{"4UNSHARD", Action{Kind: Unshard, Stage: 4, Microbatch: NoMicrobatch}, "4UNSHARD"},
		{"4RESHARD", Action{Kind: Reshard, Stage: 4, Microbatch: NoMicrobatch}, "4RESHARD"},
		{"(0F7;7B3)OVERLAP_F_B", Action{Kind: OverlapFB, Stage: 0, Microbatch: 7, BackStage: 7, BackMicrobatch: 3}, "(0F7;7B3)OVERLAP_F_B"},
		{" 1F2 ", F(1, 2), "1F2"},
		{"007F01", F(7, 1), "7F1"},
		{"", Action{}, ""},
		{"   ", Action{}, ""},
	}
	for _, tc := range tests {
		got, err := ParseAction(tc.in)
		if err != nil {
			t.Errorf("ParseAction(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseAction(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
		if got.String() != tc.out {
			t.Errorf("ParseAction(%q).String() = %q, want %q", tc.in, got.String(), tc.out)
		}
	}
}

func TestParseActionErrors(t *testing.T) {
	tests := []struct{ in, reason string }{
		{"F0", "is not an action"},
		{"0X1", "is not an action"},
		{"0F0x", "is not an action"}, // PyTorch's unanchored match would accept it
		{"-1F0", "is not an action"},
		{"0f0", "is not an action"},
		{"0F", "F needs a microbatch index"},
		{"0SEND_F", "SEND_F needs a microbatch index"},
		{"0REDUCE_GRAD1", "REDUCE_GRAD takes no microbatch index"},
		{"99999999999999999999F0", "stage index 99999999999999999999 is too large"},
		{"0F1073741824", "microbatch index 1073741824 is too large"},
		{"(0F7)OVERLAP_F_B", "OVERLAP_F_B pairs a forward and a full backward"},
		{"(0B7;7F3)OVERLAP_F_B", "OVERLAP_F_B pairs a forward and a full backward"},
		{"(0F7;7I3)OVERLAP_F_B", "OVERLAP_F_B pairs a forward and a full backward"},
		{"(0F7;7B3;1F1)OVERLAP_F_B", "OVERLAP_F_B pairs a forward and a full backward"},
		{"((0F7;7B3)OVERLAP_F_B;7B3)OVERLAP_F_B", "OVERLAP_F_B pairs a forward and a full backward"},
		{"(0F7;7B)OVERLAP_F_B", "B needs a microbatch index"},
	}
	for _, tc := range tests {
		_, err := ParseAction(tc.in)
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseAction(%q) error = %v, want one wrapping ErrMalformed", tc.in, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("ParseAction(%q) error = %q, want it to say %q", tc.in, err, tc.reason)
		}
	}
}

func TestReadCSVFixtures(t *testing.T) {
	// PyTorch's test_csv lowers these files with stage_to_rank = s % 2, 4
	// stages and 8 microbatches; the comms file has SEND/RECV, the compute
	// file has only F, I and W.
	tests := []struct {
		path      string
		comms     bool
		rowLength []int
	}{
		{fixtureCompute, false, []int{49, 49}},
		{fixtureComms, true, []int{80, 96}},
	}
	for _, tc := range tests {
		tb := readCSVFile(t, tc.path)
		if !slices.Equal(tb.Placement, LoopPlacement(4, 2)) {
			t.Errorf("%s: placement %v, want %v", tc.path, tb.Placement, LoopPlacement(4, 2))
		}
		if tb.Microbatches != 8 {
			t.Errorf("%s: %d microbatches, want 8", tc.path, tb.Microbatches)
		}
		if tb.Routes != nil || tb.MicrobatchRoute != nil {
			t.Errorf("%s: routes %v %v, want none: every microbatch runs on every stage", tc.path, tb.Routes, tb.MicrobatchRoute)
		}
		if tb.HasComms() != tc.comms {
			t.Errorf("%s: HasComms() = %v, want %v", tc.path, tb.HasComms(), tc.comms)
		}
		var lengths []int
		for _, row := range tb.Rows {
			lengths = append(lengths, len(row))
		}
		// Row lengths counted with awk -F, '{print NF}' on the files.
		if !slices.Equal(lengths, tc.rowLength) {
			t.Errorf("%s: row lengths %v, want %v", tc.path, lengths, tc.rowLength)
		}
	}
}

func TestReadCSVLineEnds(t *testing.T) {
	// The same two rows with every line ending docs/reference.md §3 allows, and
	// without a final line end.
	want := [][]Action{{F(0, 0), {}, B(0, 0)}, {{}, F(1, 0), B(1, 0)}}
	for _, in := range []string{
		"0F0,,0B0\r\n,1F0,1B0\r\n",
		"0F0,,0B0\n,1F0,1B0\n",
		"0F0,,0B0\n,1F0,1B0",
		"0F0,,0B0\r\n,1F0,1B0",
		"0F0,,0B0\r\n,1F0,1B0\r",
	} {
		tb, err := ReadCSV(strings.NewReader(in), "in.csv")
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if !rowsEqual(tb.Rows, want) {
			t.Errorf("%q: rows %v, want %v", in, tb.Rows, want)
		}
	}
}

func TestReadCSVPythonRows(t *testing.T) {
	// Python's csv.reader reads a blank line as an empty row and `""` as
	// one empty cell (checked with Python 3: csv.reader on
	// 'a\r\n\r\nb\n""\r\n,\n' gives ['a'], [], ['b'], [''], ['', '']).
	tb, err := ReadCSV(strings.NewReader("0F0\r\n\r\n1F0\n\"\"\r\n,\n"), "py.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Action{{F(0, 0)}, {}, {F(1, 0)}, {{}}, {{}, {}}}
	if !rowsEqual(tb.Rows, want) {
		t.Errorf("rows %v, want %v", tb.Rows, want)
	}
}

func TestReadCSVErrors(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		line, cell int
		reason     string
	}{
		{"empty", "", 1, 1, "empty file"},
		{"only bubbles", ",,\r\n,\r\n", 1, 1, "no actions"},
		{"bad action", "0F0,0F1\r\n1F0,1X0\r\n", 2, 2, `"1X0" is not an action`},
		{"missing microbatch", "0F0,,0B\r\n", 1, 3, "B needs a microbatch index"},
		{"stage on two ranks", "0F0,1F0\r\n,1B0\r\n", 2, 2, "stage 1 is on rank 1 here and on rank 0 at line 1, cell 2"},
		{"overlap stage on two ranks", "0F0,(0F1;1B0)OVERLAP_F_B\r\n1F0\r\n", 2, 1, "stage 1 is on rank 1 here and on rank 0 at line 1, cell 2"},
		{"stage gap", "0F0\r\n2F0\r\n", 2, 1, "stage 2 appears but stage 1 appears in no cell"},
		{"microbatch gap", "0F0,0F2\r\n", 1, 2, "microbatch 2 appears but microbatch 1 appears in no cell"},
		{"quoted", "\"0F0\",0F1\r\n", 1, 1, "quoted cell"},
		{"stray carriage return", "0F0,0F1\r0F2\r\n", 1, 2, "carriage return inside a line"},
	}
	for _, tc := range tests {
		_, err := ReadCSV(strings.NewReader(tc.in), "s.csv")
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: error %v, want one wrapping ErrMalformed", tc.name, err)
			continue
		}
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %T, want *ParseError", tc.name, err)
			continue
		}
		if pe.File != "s.csv" || pe.Line != tc.line || pe.Cell != tc.cell || !strings.Contains(pe.Reason, tc.reason) {
			t.Errorf("%s: got %q, want s.csv:%d: cell %d: ...%s...", tc.name, err, tc.line, tc.cell, tc.reason)
		}
		if prefix := "s.csv:" + strconv.Itoa(tc.line) + ": cell " + strconv.Itoa(tc.cell) + ": "; !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("%s: message %q does not start with %q", tc.name, err, prefix)
		}
	}
}

func TestWriteCSVMatchesPython(t *testing.T) {
	// Python's csv.writer with default settings ends rows in "\r\n"; the
	// fixtures were saved with "\n" line ends, so the bytes PyTorch's
	// _dump_csv writes are the fixture with "\r\n" line ends. The last case
	// is what Python 3's csv.writer wrote for the rows [[None], [],
	// ['0F0', None, None], [None, None]] (checked with python3).
	tests := []struct {
		name string
		tb   *Table
		want []byte
	}{
		{"compute fixture", readCSVFile(t, fixtureCompute), crlf(t, fixtureCompute)},
		{"comms fixture", readCSVFile(t, fixtureComms), crlf(t, fixtureComms)},
		{"bubbles", &Table{Rows: [][]Action{{{}}, {}, {F(0, 0), {}, {}}, {{}, {}}}}, []byte("\"\"\r\n\r\n0F0,,\r\n,\r\n")},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		if err := WriteCSV(&buf, tc.tb); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), tc.want) {
			t.Errorf("%s: WriteCSV wrote\n%q\nwant\n%q", tc.name, buf.Bytes(), tc.want)
		}
	}
}

// crlf returns a file's bytes with every "\n" line end turned into "\r\n".
func crlf(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
}

func TestCSVRoundTrip(t *testing.T) {
	for _, path := range []string{fixtureCompute, fixtureComms,
		"testdata/csv_simple_2rank_compute.csv", "testdata/csv_v_2rank_4stage_comms.csv"} {
		tb := readCSVFile(t, path)
		var buf bytes.Buffer
		if err := WriteCSV(&buf, tb); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCSV(&buf, path)
		if err != nil {
			t.Fatalf("%s: reading back: %v", path, err)
		}
		if !tablesEqual(tb, back) {
			t.Errorf("%s: round trip changed the table", path)
		}
	}
}

func TestReadCSVRoutes(t *testing.T) {
	// Each want is read off the cells by hand: the stages each microbatch's
	// actions name, one Route per distinct range, ordered by first stage,
	// then last.
	tests := []struct {
		name            string
		in              string
		routes          []Route
		microbatchRoute []int
	}{
		{"every stage", "0F0,0F1,,0B0,,0B1\r\n,1F0,1B0,1F1,1B1,\r\n", nil, nil},
		// Chimera's P = 2, M = 2 table (chimeraP2M2 in lower_test.go).
		{"two pipelines", "0F0,3F1,3B1,0B0\r\n2F1,1F0,1B0,2B1\r\n", []Route{{0, 1}, {2, 3}}, []int{0, 1}},
		{"lowered two pipelines", "0F0,0SEND_F0,3RECV_F1,3F1,3B1,3SEND_B1,0RECV_B0,0B0\r\n" +
			"2F1,2SEND_F1,1RECV_F0,1F0,1B0,1SEND_B0,2RECV_B1,2B1\r\n", []Route{{0, 1}, {2, 3}}, []int{0, 1}},
		{"one stage each", "0F0,0B0\r\n1F1,1B1\r\n", []Route{{0, 0}, {1, 1}}, []int{0, 1}},
		// Three pipelines, stages 0, 1..2 and 3; microbatch 0 takes the
		// middle one: routes are ordered by stage, not by microbatch.
		{"three pipelines", "0F1,0B1\r\n1F0,2F0,2B0,1B0\r\n3F2,3B2\r\n", []Route{{0, 0}, {1, 2}, {3, 3}}, []int{1, 0, 2}},
		// Ranges that overlap are not separate pipelines: every microbatch
		// must then run on every stage (ValidateCSV says which do not).
		{"nested", "0F1,0B1\r\n1F0,1F1,1B1,1B0\r\n", nil, nil},
		{"overlap", "0F0,0B0\r\n1F1,(1F0;1B1)OVERLAP_F_B,1B0\r\n", nil, nil},
		// REDUCE_GRAD names stage 1 but no microbatch, so the one range,
		// stage 0, does not cover every stage.
		{"stage without microbatches", "0F0,0B0,0F1,0B1\r\n1REDUCE_GRAD\r\n", nil, nil},
		// Ranges 0 and 2 leave stage 1 (held by microbatch 1's range 1..2)
		// to an overlapping range.
		{"gap", "0F0,0B0\r\n1F1\r\n2F0,2F1\r\n", nil, nil},
	}
	for _, tc := range tests {
		tb, err := ReadCSV(strings.NewReader(tc.in), tc.name+".csv")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !slices.Equal(tb.Routes, tc.routes) || !slices.Equal(tb.MicrobatchRoute, tc.microbatchRoute) {
			t.Errorf("%s: routes %v, microbatch routes %v; want %v, %v", tc.name, tb.Routes, tb.MicrobatchRoute, tc.routes, tc.microbatchRoute)
		}
		if (tb.Routes == nil) != (tc.routes == nil) {
			t.Errorf("%s: Routes nil = %v, want %v", tc.name, tb.Routes == nil, tc.routes == nil)
		}
	}
}

// TestCSVChimeraRoundTrip writes Chimera tables, as generated and lowered,
// and reads them back: the routes the generator gave them (gen_chimera.go)
// come back with the cells, and the table read back lowers and runs in
// PyTorch's lockstep check to the count of the generated table.
func TestCSVChimeraRoundTrip(t *testing.T) {
	for _, sh := range []Shape{{Ranks: 2, Microbatches: 2}, {Ranks: 2, Microbatches: 6}, {Ranks: 4, Microbatches: 4}, {Ranks: 4, Microbatches: 12}} {
		gen := mustGenerate(t, "chimera", sh)
		lowered, err := Lower(gen)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			format string
			tb     *Table
		}{{"compute_only", gen}, {"compute_comms", lowered}} {
			name := fmt.Sprintf("P%d_M%d_%s", sh.Ranks, sh.Microbatches, tc.format)
			var buf bytes.Buffer
			if err := WriteCSV(&buf, tc.tb); err != nil {
				t.Fatal(err)
			}
			back, err := ReadCSV(&buf, name)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if !tablesEqual(back, tc.tb) {
				t.Errorf("%s: read back routes %v %v, want %v %v", name, back.Routes, back.MicrobatchRoute, tc.tb.Routes, tc.tb.MicrobatchRoute)
			}
			if err := back.Validate(); err != nil {
				t.Errorf("%s: read back: %v", name, err)
			}
			want, err := lockstepCount(tc.tb)
			if err != nil {
				t.Fatalf("%s: generated table: %v", name, err)
			}
			if got, err := lockstepCount(back); err != nil || got != want {
				t.Errorf("%s: read back: %d steps, %v; want %d as generated", name, got, err, want)
			}
		}
	}
}

// lockstepCount lowers t if it has no communication yet and counts its
// lockstep steps.
func lockstepCount(t *Table) (int, error) {
	if !t.HasComms() {
		low, err := Lower(t)
		if err != nil {
			return 0, err
		}
		t = low
	}
	return Lockstep(t)
}

// rowsEqual compares rows cell by cell; a nil row equals an empty one.
func rowsEqual(a, b [][]Action) bool {
	return slices.EqualFunc(a, b, func(x, y []Action) bool { return slices.Equal(x, y) })
}

// tablesEqual compares what a schedule file carries: rows, placement,
// microbatch count and routes.
func tablesEqual(a, b *Table) bool {
	return rowsEqual(a.Rows, b.Rows) && slices.Equal(a.Placement, b.Placement) && a.Microbatches == b.Microbatches &&
		slices.Equal(a.Routes, b.Routes) && slices.Equal(a.MicrobatchRoute, b.MicrobatchRoute)
}
