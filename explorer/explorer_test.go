package explorer

import (
	"regexp"

	"github.com/pipelab/pipelab/experiments"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1:8080": true, "localhost:80": true, "[::1]:8080": true, "127.0.0.2": true,
		"example.com:8080": false, "10.0.0.1:8080": false, "localhost.evil.com": false, "": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// TimelineOf gives every event of a simulated timeline, compute events
// first, each with its times as the simulator computed them, bit for bit
// (under the GPU model too, whose times in seconds a trace's microseconds
// would round), and the table's ranks.
func TestTimelineOfKeepsEveryEvent(t *testing.T) {
	tab, err := pipeline.Generate("zb-h1", pipeline.Shape{Ranks: 4, Microbatches: 8})
	if err != nil {
		t.Fatal(err)
	}
	model, _ := cost.LookupNetwork("llama-7b")
	device, _ := cost.LookupGPU("h100")
	link, _ := cost.LookupLink("ib-ndr")
	gpu, err := cost.NewGPUModel(cost.GPUConfig{Network: model, GPU: device, Link: link, Microbatch: 1, Sequence: 2048}, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range []cost.Model{cost.Unit{}, gpu} {
		tl, err := sim.Simulate(tab, model, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := TimelineOf(tl)
		var compute, comm int
		for _, e := range tl.Events {
			ev, i := &got.Comm, comm
			if e.Action.Kind.IsCompute() {
				ev, i = &got.Compute, compute
				compute++
			} else {
				comm++
			}
			if ev.Rank[i] != e.Rank || ev.Start[i] != e.Start || ev.End[i] != e.End || ev.Kind[i] != e.Action.Kind.String() || ev.Stage[i] != e.Action.Stage || ev.Name[i] != e.Action.String() {
				t.Fatalf("event %v given as rank %d [%v, %v] %s", e, ev.Rank[i], ev.Start[i], ev.End[i], ev.Name[i])
			}
		}
		if got.Ranks != 4 || len(got.Compute.Rank) != compute || len(got.Comm.Rank) != comm || compute != 4*8*3 {
			t.Errorf("%d ranks, %d compute and %d comm events; want 4, %d (3 per microbatch and stage) and %d", got.Ranks, len(got.Compute.Rank), len(got.Comm.Rank), compute, comm)
		}
	}
}

func TestRequestArgs(t *testing.T) {
	dir := t.TempDir()
	flags := map[string]Flag{"ranks": {}, "kind": {}, "chunks": {}, "schedule": {File: true}, "delays": {File: true, Keywords: []string{"exact"}},
		"trace": {Refused: true}, "format": {Refused: true}}
	req := request{
		Flags: map[string]string{"ranks": " 4 ", "kind": "1f1b", "chunks": "", "delays": "exact"},
		Files: map[string]upload{"schedule": {Name: "../../etc/x.csv", Text: "0F0\n"}},
	}
	args, re := req.args("simulate", dir, flags)
	if re != nil {
		t.Fatal(re)
	}
	want := []string{"simulate", "--delays=exact", "--kind=1f1b", "--ranks=4", "--schedule=" + filepath.Join(dir, "schedule", "x.csv")}
	if strings.Join(args, " ") != strings.Join(want, " ") {
		t.Errorf("args %q, want %q (flags in name order, empty ones left out, the file under its base name)", args, want)
	}
	if got := commandLine(args, dir, req); got != "pipelab simulate --delays=exact --kind=1f1b --ranks=4 --schedule=x.csv" {
		t.Errorf("command line %q", got)
	}
	// A flag that writes a file, one the server sets, a path for a file
	// flag (its keywords aside), a flag the command does not have and a
	// name that is no flag's are each refused, naming the flag.
	for _, bad := range []map[string]string{{"trace": "/tmp/t.json"}, {"format": "text"}, {"schedule": "/etc/passwd"}, {"delays": "/etc/os-release"},
		{"help": "true"}, {"Kind": "x"}} {
		_, re := (request{Flags: bad}).args("simulate", dir, flags)
		if re == nil || re.status != 400 {
			t.Errorf("flags %v accepted (%v)", bad, re)
			continue
		}
		for n := range bad {
			if re.p.Flag != n {
				t.Errorf("flags %v: refused beside %q, want %q", bad, re.p.Flag, n)
			}
		}
	}
	if _, re := (request{Files: map[string]upload{"ranks": {Name: "x", Text: "4"}}}).args("simulate", dir, flags); re == nil {
		t.Errorf("a file for --ranks accepted")
	}
	p := problemOf("pipelab simulate: "+filepath.Join(dir, "schedule", "x.csv")+":2: cell 1: bad\nsee pipelab simulate --help\n", dir, req)
	if p.Error != "pipelab simulate: x.csv:2: cell 1: bad" || p.Flag != "schedule" {
		t.Errorf("problem %+v", p)
	}
}

// The explorer's GPU choices start at the defaults of specs and the
// command line (experiments.DefaultGPU), so that a page left as it opens
// prices as "pipelab simulate --model gpt-1.3b" does.
func TestChoicesStartAtTheDefaults(t *testing.T) {
	js, err := assets.ReadFile("assets/app.js")
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"model": experiments.DefaultGPU.Preset, "gpu": experiments.DefaultGPU.GPU, "link": experiments.DefaultGPU.Link} {
		line := regexp.MustCompile(`fill\("` + id + `", [^\n]*, "([^"]+)"\);`).FindSubmatch(js)
		if line == nil {
			t.Errorf("app.js fills no %s choice", id)
			continue
		}
		if got := string(line[1]); got != want {
			t.Errorf("the %s choice starts at %s, the default is %s", id, got, want)
		}
	}
}
