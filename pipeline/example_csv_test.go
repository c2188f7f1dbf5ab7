package pipeline_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/pipelab/pipelab/pipeline"
)

// simpleCompute is the 2-rank, 2-stage schedule of PyTorch's test_send_recv.
const simpleCompute = "0F0,0F1,,0B0,,0B1\r\n,1F0,1B0,1F1,1B1,\r\n"

func ExampleParseAction() {
	for _, s := range []string{"2F0", "1SEND_B3", "0REDUCE_GRAD", "(0F7;7B3)OVERLAP_F_B", "0X1"} {
		a, err := pipeline.ParseAction(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: kind %s, stage %d, microbatch %d\n", a, a.Kind, a.Stage, a.Microbatch)
	}
	// Output:
	// 2F0: kind F, stage 2, microbatch 0
	// 1SEND_B3: kind SEND_B, stage 1, microbatch 3
	// 0REDUCE_GRAD: kind REDUCE_GRAD, stage 0, microbatch -1
	// (0F7;7B3)OVERLAP_F_B: kind OVERLAP_F_B, stage 0, microbatch 7
	// pipeline: action "0X1": "0X1" is not an action: want stage, kind, microbatch as in 2F0, 1SEND_B3, 0REDUCE_GRAD: malformed schedule
}

func ExampleReadCSV() {
	t, err := pipeline.ReadCSV(strings.NewReader(simpleCompute), "simple.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ranks:", t.Ranks(), "stages:", t.Stages(), "placement:", t.Placement, "microbatches:", t.Microbatches)

	_, err = pipeline.ReadCSV(strings.NewReader("0F0,1F0\n,1B0\n"), "bad.csv")
	fmt.Println(err)
	// Output:
	// ranks: 2 stages: 2 placement: [0 1] microbatches: 2
	// bad.csv:2: cell 2: stage 1 is on rank 1 here and on rank 0 at line 1, cell 2: a stage lives on one rank
}

func ExampleWriteCSV() {
	t, _ := pipeline.ReadCSV(strings.NewReader(simpleCompute), "simple.csv")
	var b strings.Builder
	_ = pipeline.WriteCSV(&b, t)
	fmt.Printf("%q\n", b.String())
	// Output:
	// "0F0,0F1,,0B0,,0B1\r\n,1F0,1B0,1F1,1B1,\r\n"
}

func ExampleLower() {
	t, _ := pipeline.ReadCSV(strings.NewReader(simpleCompute), "simple.csv")
	comms, err := pipeline.Lower(t)
	if err != nil {
		fmt.Println(err)
		return
	}
	for r, row := range comms.Rows {
		fmt.Println("rank", r, row)
	}
	// Output:
	// rank 0 [0F0 0SEND_F0 0F1 0SEND_F1 0RECV_B0 0B0 0RECV_B1 0B1]
	// rank 1 [1RECV_F0 1RECV_F1 1F0 1B0 1SEND_B0 1F1 1B1 1SEND_B1]
}

func ExampleMergeIW() {
	t := &pipeline.Table{Rows: [][]pipeline.Action{{pipeline.F(0, 0), pipeline.I(0, 0), {}, pipeline.W(0, 0)}}, Placement: []int{0}, Microbatches: 1}
	fmt.Println(pipeline.MergeIW(t).Rows[0])
	// Output:
	// [0F0 0B0]
}

func ExampleLockstep() {
	t, _ := pipeline.ReadCSV(strings.NewReader(simpleCompute), "simple.csv")
	comms, _ := pipeline.Lower(t)
	steps, err := pipeline.Lockstep(comms)
	fmt.Println(steps, err)

	// Both ranks wait to receive before they send.
	stuck, _ := pipeline.ReadCSV(strings.NewReader("0RECV_B0,0F0,0SEND_F0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n"), "stuck.csv")
	_, err = pipeline.Lockstep(stuck)
	fmt.Println(err)
	// Output:
	// 11 <nil>
	// pipeline: deadlock at step 0: rank 0 at 0RECV_B0 waits for 1SEND_B0; rank 1 at 1RECV_F0 waits for 0SEND_F0
}

func ExampleRender() {
	t, _ := pipeline.ReadCSV(strings.NewReader(simpleCompute), "simple.csv")
	_ = pipeline.Render(os.Stdout, t, pipeline.RenderOptions{})
	_ = pipeline.Render(os.Stdout, t, pipeline.RenderOptions{Style: pipeline.PaperStyle, MaxColumns: 4})
	// Output:
	// rank 0: 0F0 0F1   . 0B0   . 0B1
	// rank 1:   . 1F0 1B0 1F1 1B1   .
	// rank 0: F1 F2  . B1
	// rank 1:  . F1 B1 F2
}

func ExampleGenerate_interleavedZB() {
	t, err := pipeline.Generate("interleaved-zb", pipeline.Shape{Ranks: 2, Microbatches: 2, Chunks: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = pipeline.Render(os.Stdout, t, pipeline.RenderOptions{})
	// Output:
	// rank 0: 0F0 0F1 2F0   . 2F1 2I0 2W0 2I1 2W1 0I0 0W0 0I1 0W1
	// rank 1:   . 1F0 1F1 3F0 3I0 3F1 3I1 3W0 1I0 3W1 1I1 1W0 1W1
}

func ExampleDropBubbles() {
	t, _ := pipeline.ReadCSV(strings.NewReader(simpleCompute), "simple.csv")
	fmt.Println(pipeline.DropBubbles(t).Rows)
	// Output:
	// [[0F0 0F1 0B0 0B1] [1F0 1B0 1F1 1B1]]
}

func ExampleLockstepSchedule() {
	t, _ := pipeline.ReadCSV(strings.NewReader(simpleCompute), "simple.csv")
	comms, _ := pipeline.Lower(t)
	grid, err := pipeline.LockstepSchedule(comms)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = pipeline.Render(os.Stdout, grid, pipeline.RenderOptions{Style: pipeline.PaperStyle})
	// Output:
	// rank 0:      F1 SEND_F1      F2 SEND_F2       .       . RECV_B1      B1       . RECV_B2      B2
	// rank 1:       . RECV_F1       . RECV_F2      F1      B1 SEND_B1      F2      B2 SEND_B2       .
}

// ValidateCSV checks a file's order as PyTorch's loader does: here stage 1
// backwards microbatch 0 without having forwarded it.
func ExampleValidateCSV() {
	t, err := pipeline.ReadCSV(strings.NewReader("0F0,,0B0\r\n,1B0\r\n"), "x.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pipeline.ValidateCSV(t, "x.csv"))
	// Output:
	// x.csv:2: cell 2: 1B0 before 1F0, or without it (rule: a B or I comes after the F of its stage and microbatch)
}

// TorchOrder lays a generated GPipe table out as PyTorch's ScheduleGPipe
// does: r empty cells before rank r's first forward and 3(P-1-r) before its
// first backward. The generated rows (printed first) are the unit-time
// grid, in which rank 0 waits two steps for rank 1's first backward.
func ExampleTorchOrder() {
	t, err := pipeline.Generate("gpipe", pipeline.Shape{Ranks: 2, Microbatches: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, rows := range [][][]pipeline.Action{t.Rows, pipeline.TorchOrder(t).Rows} {
		for _, row := range rows {
			cells := make([]string, len(row))
			for i, a := range row {
				cells[i] = a.String()
			}
			fmt.Printf("%q\n", strings.Join(cells, ","))
		}
	}
	// Output:
	// "0F0,0F1,,,0B0,0B1"
	// ",1F0,1F1,1B0,1B1"
	// "0F0,0F1,,,,0B0,0B1"
	// ",1F0,1F1,1B0,1B1"
}

// LowerLockstep counts the steps of the lowered table without building it.
func ExampleLowerLockstep() {
	t, _ := pipeline.ReadCSV(strings.NewReader(simpleCompute), "simple.csv")
	fmt.Println(pipeline.LowerLockstep(t))
	// Output:
	// 11 <nil>
}
