package cost

import (
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
)

func TestParseCostsCSV(t *testing.T) {
	// The Zero Bubble paper's Appendix D profile of the 1.5B model at
	// m = 24 (docs/reference.md §5): T_F 18.522, T_B 18.086, T_W 9.337 and
	// T_comm 0.601 ms, here on three stages.
	file := "stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\r\n" +
		"0,18.522,18.086,9.337,0.601\r\n" +
		"1, 18.522, 18.086, 9.337, 0.601\r\n" +
		"# the last stage sends nothing on\r\n" +
		"2,20,19,10,\r\n"
	m, err := ParseCostsCSV([]byte(file), "zb.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []Stage{{18.522e-3, 18.086e-3, 9.337e-3}, {18.522e-3, 18.086e-3, 9.337e-3}, {20e-3, 19e-3, 10e-3}}
	if len(m.Stages) != 3 || len(m.Comm) != 2 {
		t.Fatalf("read %+v", m)
	}
	for s, w := range want {
		if got := m.Stages[s]; !near(got.TF, w.TF) || !near(got.TB, w.TB) || !near(got.TW, w.TW) {
			t.Errorf("stage %d: %+v, want %+v seconds", s, got, w)
		}
	}
	if !near(m.Comm[0], 0.601e-3) || !near(m.Comm[1], 0.601e-3) {
		t.Errorf("comm %v, want 0.601 ms twice", m.Comm)
	}
	// Priced for a 1F1B table of three stages: a full B is T_B + T_W, the
	// message from stage 1 to 2 (and the gradient back) the comm of stage 1.
	tab, err := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 3, Microbatches: 3})
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.ForTable(tab)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Compute(pipeline.B(2, 0)); !near(got, 29e-3) {
		t.Errorf("B on stage 2: %g, want 29 ms", got)
	}
	if got := e.Transfer(pipeline.Act(pipeline.SendB, 2, 0), 2, 1); !near(got, 0.601e-3) {
		t.Errorf("gradient from stage 2: %g, want 0.601 ms", got)
	}
	four, _ := pipeline.Generate("1f1b", pipeline.Shape{Ranks: 4, Microbatches: 4})
	if _, err := m.ForTable(four); err == nil || !strings.Contains(err.Error(), "3 stages measured, the table has 4") {
		t.Errorf("four stages: %v", err)
	}
}

// Bad costs files: one line naming the file, the line and the column.
func TestParseCostsCSVErrors(t *testing.T) {
	head := "stage,fwd_ms,bwd_ms,wgrad_ms,comm_ms\n"
	tests := []struct{ file, want string }{
		{"", "c.csv: empty costs file"},
		{"stage,fwd,bwd,wgrad,comm\n0,1,1,1,\n", "c.csv:1: column 2: header \"fwd\""},
		{head, "c.csv: no stages after the header"},
		{head + "1,1,1,1,\n", `c.csv:2: stage: "1", want 0`},
		{head + "0,1,-1,1,0.5\n1,1,1,1,\n", "c.csv:2: bwd_ms: must not be negative, got -1 ms"},
		{head + "0,1,1,x,0.5\n1,1,1,1,\n", `c.csv:2: wgrad_ms: want a non-negative decimal number of milliseconds, got "x"`},
		{head + "0,1,1,1,\n1,1,1,1,\n", "c.csv:2: comm_ms: want a non-negative decimal number"},
		{head + "0,1,1,1,0.5\n1,1,1,1,0.5\n", "c.csv:3: comm_ms: the last stage sends to no stage"},
		{head + "0,1,1,1\n", "c.csv:2: wrong number of columns, want 5"},
		{head + "0,0,0,0,\n", "c.csv:2: stage 0: fwd_ms, bwd_ms and wgrad_ms are all 0"},
	}
	for _, tt := range tests {
		_, err := ParseCostsCSV([]byte(tt.file), "c.csv")
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line with %q", tt.file, err, tt.want)
		}
	}
}

// A Kineto trace: the CPU user_annotation spans are ignored when the GPU
// spans (gpu_user_annotation) are there; two iterations average; a
// stage's I and W give T_B and T_W; a stage with B only gets T_W = 0.
func TestParseProfileKineto(t *testing.T) {
	trace := `{"traceEvents": [
	 {"ph": "X", "cat": "user_annotation", "name": "PP:0F0", "ts": 0, "dur": 50},
	 {"ph": "X", "cat": "gpu_user_annotation", "name": "PP:0F0", "ts": 10, "dur": 1000},
	 {"ph": "X", "cat": "gpu_user_annotation", "name": "PP:0F0", "ts": 9000, "dur": 1200},
	 {"ph": "X", "cat": "gpu_user_annotation", "name": "PP:0SEND_F0", "ts": 1100, "dur": 100},
	 {"ph": "X", "cat": "gpu_user_annotation", "name": "PP:0I0", "ts": 3000, "dur": 900},
	 {"ph": "X", "cat": "gpu_user_annotation", "name": "PP:0W0", "ts": 4000, "dur": 600},
	 {"ph": "X", "cat": "gpu_user_annotation", "name": "PP:1F0", "ts": 1300, "dur": 1000},
	 {"ph": "X", "cat": "gpu_user_annotation", "name": "PP:1B0", "ts": 2300, "dur": 2000},
	 {"ph": "X", "cat": "gpu_user_annotation", "name": "PP:1SEND_B0", "ts": 4300, "dur": 300},
	 {"ph": "X", "cat": "kernel", "name": "ampere_bf16_gemm", "ts": 10, "dur": 400},
	 {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#3", "ts": 0, "dur": 20000}
	]}`
	path := t.TempDir() + "/rank.json"
	if err := writeText(path, trace); err != nil {
		t.Fatal(err)
	}
	m, err := ReadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Stage{{TF: 1.1e-3, TB: 0.9e-3, TW: 0.6e-3}, {TF: 1e-3, TB: 2e-3}}
	for s, w := range want {
		if got := m.Stages[s]; !near(got.TF, w.TF) || !near(got.TB, w.TB) || !near(got.TW, w.TW) {
			t.Errorf("stage %d: %+v, want %+v", s, got, w)
		}
	}
	if len(m.Comm) != 1 || !near(m.Comm[0], 0.2e-3) {
		t.Errorf("comm %v, want the mean of 0.1 and 0.3 ms", m.Comm)
	}
}

// Traces without what ReadProfile reads: errors naming the file and the
// regions.
func TestParseProfileErrors(t *testing.T) {
	tests := []struct{ trace, want string }{
		{`{"traceEvents": [{"ph": "X", "name": "aten::mm", "dur": 3}]}`, "no regions named PP:<stage><F|B|I|W|SEND_F|SEND_B><microbatch>"},
		{`{"traceEvents": [{"ph": "X", "name": "PP:0F0", "dur": 3}, {"ph": "X", "name": "PP:1B0", "dur": 3}]}`, "stage 0 has no backward regions"},
		{`{"traceEvents": [{"ph": "X", "name": "PP:1F0", "dur": 3}, {"ph": "X", "name": "PP:1B0", "dur": 3}]}`, "stage 0 has no F regions (PP:0F<microbatch>)"},
		{`{"traceEvents": [{"ph": "X", "name": "PP:0F0", "dur": 3}, {"ph": "X", "name": "PP:0I0", "dur": 3}]}`, "stage 0 has I regions but no W regions"},
		{`{"traceEvents": [{"ph": "X", "name": "PP:0F0"}]}`, "traceEvents[0] (PP:0F0): an X event needs a non-negative dur"},
		{`not json`, "not a Chrome trace"},
	}
	for i, tt := range tests {
		path := t.TempDir() + "/t.json"
		if err := writeText(path, tt.trace); err != nil {
			t.Fatal(err)
		}
		_, err := ReadProfile(path)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "t.json") || strings.Contains(err.Error(), "\n") {
			t.Errorf("case %d: error %v, want one line naming t.json with %q", i, err, tt.want)
		}
	}
}
