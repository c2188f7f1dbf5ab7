package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/request"
)

// zbAutoCosts are the Zero Bubble paper's 1.5B per-stage times (Appendix
// D, docs/reference.md §5), ms.
var zbAutoCosts = []string{"--fwd", "18.522", "--bwd", "18.086", "--wgrad", "9.337", "--comm", "0.601"}

func simulateMakespan(t *testing.T, args ...string) float64 {
	t.Helper()
	code, out, errs := runCLI(append([]string{"simulate", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("simulate %v: exit %d: %s", args, code, errs)
	}
	var rep request.SimulateReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	return rep.Makespan
}

// zb-auto from explicit costs, written as PyTorch CSV with SEND/RECV, is
// accepted by "pipelab check", and "simulate --schedule" times the file as
// "simulate --kind zb-auto" times the generated table; with the limit 2P
// it is not slower than ZB-H2 under the same costs.
func TestZBAutoCommandLine(t *testing.T) {
	shape := []string{"--ranks", "8", "--microbatches", "24"}
	args := append(append([]string{"schedule", "--kind", "zb-auto", "--max-activations", "16", "--format", "csv", "--comms"}, shape...), zbAutoCosts...)
	code, out, errs := runCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	path := filepath.Join(t.TempDir(), "zb-auto.csv")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI("check", path); code != 0 {
		t.Fatalf("check: exit %d: %s", code, errs)
	}
	generated := simulateMakespan(t, append(append([]string{"--kind", "zb-auto", "--max-activations", "16"}, shape...), zbAutoCosts...)...)
	// The file carries its SEND/RECV, timed as written.
	read := simulateMakespan(t, append([]string{"--schedule", path}, zbAutoCosts...)...)
	h2 := simulateMakespan(t, append(append([]string{"--kind", "zb-h2"}, shape...), zbAutoCosts...)...)
	if read != generated {
		t.Errorf("the CSV takes %g, the generated table %g", read, generated)
	}
	if generated > h2 {
		t.Errorf("zb-auto %g slower than zb-h2 %g", generated, h2)
	}
}

func TestZBAutoFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"schedule", "--kind", "zb-h1", "--ranks", "4", "--microbatches", "8", "--max-activations", "4"}, "--max-activations applies to --kind zb-auto only"},
		{[]string{"schedule", "--kind", "1f1b", "--ranks", "4", "--microbatches", "8", "--fwd", "1"}, "--fwd: cost flags apply to --kind zb-auto only"},
		{[]string{"schedule", "--kind", "zb-auto", "--ranks", "4", "--microbatches", "8", "--max-activations", "-1"}, "--max-activations must be at least 1"},
		{[]string{"simulate", "--kind", "zb-auto", "--ranks", "4", "--microbatches", "8", "--chunks", "2"}, "--chunks must be 1"},
		{[]string{"compare", "--ranks", "4", "--microbatches", "8", "--max-activations", "8"}, "--max-activations applies to zb-auto only"},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "3", "--policy", "ready", "--cap", "+-1"}, "want N"},
		{[]string{"simulate", "--kind", "1f1b", "--ranks", "2", "--microbatches", "3", "--policy", "ready", "--cap", "x"}, "want N"},
	} {
		code, _, errs := runCLI(c.args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want a failure saying %q", c.args, code, firstLine(errs), c.want)
		}
	}
}

// The Zero Bubble paper's Table 5 (arXiv 2401.10241) gives the bubble rate
// of its automatic schedules at the activation limits P (ZB-1p) and 2P
// (ZB-2p), under its memory model, where a microbatch holds only M_W of
// its M_B between its I and its W. --wgrad-memory states that share with
// explicit costs: M_W/M_B = 32h / (34h + 5as) of a GPT layer at s = 1024
// (docs/reference.md §2). The times are Appendix D's (docs/reference.md
// §5). ZB-1p is ZB-H1's 0.1585 and 0.1421, reproduced to the paper's four
// decimals, as is 28.3B's ZB-2p 0.0038; 1.5B's ZB-2p comes out 0.0446
// against the paper's 0.0433, and the test holds it within 5% of the
// paper's gain from ZB-H2 (0.1083) to ZB-2p. The gap is the choice among
// the heuristic's variants: simulate with explicit costs keeps the
// shortest makespan, the paper's scheduler the shortest longest span,
// which gives 0.0433: simulate --post-validation chooses that way, and
// the test holds both ZB-2p rates to the paper's four decimals then
// (docs/zb-auto.md).
func TestZBAutoPaperTable5(t *testing.T) {
	for _, c := range []struct {
		name, p, m string
		times      []string
		h, a       float64
		zb1p, zb2p float64 // Table 5
		zbh2       float64 // Table 5's ZB-H2, for the 5% band
	}{
		{"1.5B", "8", "24", zbAutoCosts, 2304, 24, 0.1585, 0.0433, 0.1083},
		{"28.3B", "32", "96", []string{"--fwd", "10.419", "--bwd", "10.207", "--wgrad", "7.715", "--comm", "0.408"}, 6144, 48, 0.1421, 0.0038, 0.0641},
	} {
		share := 32 * c.h / (34*c.h + 5*c.a*1024)
		rate := func(limit string, extra ...string) float64 {
			args := append([]string{"simulate", "--format", "json", "--kind", "zb-auto", "--ranks", c.p, "--microbatches", c.m,
				"--max-activations", limit, "--wgrad-memory", strconv.FormatFloat(share, 'g', -1, 64)}, append(c.times, extra...)...)
			code, out, errs := runCLI(args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
			var rep request.SimulateReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			return rep.BubbleRatio
		}
		p, _ := strconv.Atoi(c.p)
		zb1p, zb2p := rate(c.p), rate(strconv.Itoa(2*p))
		t.Logf("%s, M_W/M_B %.4f: ZB-1p %.4f (paper %.4f), ZB-2p %.4f (paper %.4f)", c.name, share, zb1p, c.zb1p, zb2p, c.zb2p)
		if math.Abs(zb1p-c.zb1p) > 0.00005 {
			t.Errorf("%s ZB-1p: bubble rate %.5f, the paper's %.4f", c.name, zb1p, c.zb1p)
		}
		if band := 0.05 * (c.zbh2 - c.zb2p); math.Abs(zb2p-c.zb2p) > band {
			t.Errorf("%s ZB-2p: bubble rate %.5f, more than %.5f from the paper's %.4f", c.name, zb2p, band, c.zb2p)
		}
		if c.name == "28.3B" && math.Abs(zb2p-c.zb2p) > 0.00005 {
			t.Errorf("%s ZB-2p: bubble rate %.5f, the paper's %.4f", c.name, zb2p, c.zb2p)
		}
		// Chosen by the span, as the paper's scheduler chooses
		// (--post-validation), both ZB-2p rates are the paper's.
		if pv := rate(strconv.Itoa(2*p), "--post-validation"); math.Abs(pv-c.zb2p) > 0.00005 {
			t.Errorf("%s ZB-2p chosen by span: bubble rate %.5f, the paper's %.4f", c.name, pv, c.zb2p)
		}
	}
}

// --wgrad-memory is refused where it means nothing, out of (0, 1], and
// beside the GPU model, whose memory model has an M_W of its own.
func TestZBAutoWgradMemoryErrors(t *testing.T) {
	shape := []string{"--ranks", "4", "--microbatches", "8"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append([]string{"schedule", "--kind", "zb-h1", "--wgrad-memory", "0.5"}, shape...), "--wgrad-memory applies to --kind zb-auto only"},
		{append([]string{"schedule", "--kind", "zb-auto", "--wgrad-memory", "0"}, shape...), "--wgrad-memory is M_W as a fraction of M_B and must be in (0, 1], got 0"},
		{append([]string{"simulate", "--kind", "zb-auto", "--wgrad-memory", "1.5"}, shape...), "must be in (0, 1], got 1.5"},
		{append([]string{"simulate", "--kind", "zb-auto", "--wgrad-memory", "0.5", "--model", "gpt-1.3b"}, shape...), "the GPU model (--model) prices M_W itself"},
		{append([]string{"compare", "--kind", "zb-auto", "--wgrad-memory", "0.5", "--model", "gpt-1.3b"}, shape...), "the GPU model (--model) prices M_W itself"},
		{append([]string{"compare", "--kind", "1f1b,zb-h1", "--wgrad-memory", "0.5"}, shape...), "--wgrad-memory applies to zb-auto only"},
	} {
		code, _, errs := runCLI(c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args, code, firstLine(errs), c.want)
		}
	}
}
