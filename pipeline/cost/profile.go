package cost

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/pipelab/pipelab/internal/inputfile"
)

// ProfileRegion matches the names of the regions ReadProfile reads: a
// pipeline action as torch.distributed.pipelining's schedule runtime
// annotates it (record_function("PP:" + action), e.g. "PP:1F3", "PP:0I2",
// "PP:0W2", "PP:2B0", "PP:0SEND_F1", "PP:1SEND_B0"), or the same action
// without the prefix, as pipelab's own Chrome trace names it.
var ProfileRegion = regexp.MustCompile(`^(?:PP:)?(\d+)(F|B|I|W|SEND_F|SEND_B)(\d+)$`)

// ReadProfile reads per-stage times from Chrome traces of training
// iterations: PyTorch profiler (Kineto) traces of pipeline ranks, or the
// trace "pipelab simulate --trace" writes. It reads the complete ("X")
// events whose names ProfileRegion matches; when a trace has
// gpu_user_annotation events (the GPU-side spans Kineto records for
// record_function regions), it reads those alone, since the CPU-side
// spans of asynchronous CUDA work measure launches, not kernels. A stage's
// T_F is the mean duration of its F regions, T_B of its I regions and T_W
// of its W regions; a stage that only has full backwards (B) takes their
// mean as T_B and T_W = 0. The transfer between stages s and s+1 is the
// mean span of the SEND_F regions of stage s and the SEND_B regions of
// stage s+1 (in a PyTorch trace, the span of the send's NCCL kernel on the
// GPU, which includes any wait for the receiver); without any, it is 0.
// Several files (one per rank) pool their regions; every stage from 0 to
// the highest one seen must have F regions and a backward. Every duration
// must be a time CheckTime accepts, every stage below MaxStages and every
// microbatch index at most maxMicrobatch; a file is read up to
// inputfile.Trace bytes and one event up to inputfile.TraceEvent.
func ReadProfile(paths ...string) (Measured, error) {
	if len(paths) == 0 {
		return Measured{}, fmt.Errorf("profile: no trace file")
	}
	var p profileSums
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = fmt.Errorf("%s: %w", pe.Path, pe.Err)
			}
			return Measured{}, fmt.Errorf("profile: %w", err)
		}
		err = p.read(&inputfile.Limited{R: f, Name: path, What: "trace", Cap: inputfile.Trace}, path)
		f.Close()
		if err != nil {
			return Measured{}, err
		}
	}
	return p.measured(strings.Join(paths, ", "))
}

// traceRecord is the part of a trace event ReadProfile reads.
type traceRecord struct {
	Name  string   `json:"name"`
	Cat   string   `json:"cat"`
	Phase string   `json:"ph"`
	Dur   *float64 `json:"dur"` // microseconds
}

// profileSums accumulates region durations by stage and kind.
type profileSums struct {
	sum   map[regionKey]float64
	count map[regionKey]int
}

type regionKey struct {
	stage int
	kind  string
}

// read adds the regions of one trace file, decoded event by event so that
// a trace of any size takes little memory. Of a file's regions it keeps
// the gpu_user_annotation ones when there are any, all otherwise.
func (p *profileSums) read(r io.Reader, name string) error {
	window := &eventWindow{r: r, name: name}
	dec := json.NewDecoder(bufio.NewReader(window))
	notTrace := func(err error) error {
		var big *inputfile.TooLarge
		if errors.As(err, &big) {
			return big
		}
		return fmt.Errorf("%s: not a Chrome trace (a JSON object with traceEvents, or an array of events): %v", name, err)
	}
	tok, err := dec.Token()
	if err != nil {
		return notTrace(err)
	}
	var gpu, all profileSums
	events := func() error {
		for i := 0; dec.More(); i++ {
			window.start()
			var e traceRecord
			if err := dec.Decode(&e); err != nil {
				return notTrace(fmt.Errorf("traceEvents[%d]: %v", i, err))
			}
			if err := all.event(e, i, name); err != nil {
				return err
			}
			if e.Cat == "gpu_user_annotation" {
				if err := gpu.event(e, i, name); err != nil {
					return err
				}
			}
		}
		_, err := dec.Token() // the closing ]
		return err
	}
	switch tok {
	case json.Delim('['):
		if err := events(); err != nil {
			return err
		}
	case json.Delim('{'):
		for dec.More() {
			window.start()
			key, err := dec.Token()
			if err != nil {
				return notTrace(err)
			}
			if key != "traceEvents" {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return notTrace(err)
				}
				continue
			}
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return notTrace(fmt.Errorf("traceEvents is not an array"))
			}
			if err := events(); err != nil {
				return err
			}
		}
	default:
		return notTrace(fmt.Errorf("it starts with %v", tok))
	}
	chosen := all
	if len(gpu.count) > 0 {
		chosen = gpu
	}
	if len(chosen.count) == 0 {
		return fmt.Errorf("%s: no regions named PP:<stage><F|B|I|W|SEND_F|SEND_B><microbatch> (as torch.distributed.pipelining annotates its actions) or <stage><kind><microbatch> (pipelab's traces)", name)
	}
	p.merge(chosen)
	return nil
}

// event adds event i if it is a complete event of a region ReadProfile
// reads.
func (p *profileSums) event(e traceRecord, i int, name string) error {
	m := ProfileRegion.FindStringSubmatch(e.Name)
	if m == nil || e.Phase != "X" {
		return nil
	}
	where := fmt.Sprintf("%s: traceEvents[%d] (%s)", name, i, inputfile.Name(e.Name))
	if e.Dur == nil {
		return fmt.Errorf("%s: an X event needs a non-negative dur", where)
	}
	if err := CheckTime(*e.Dur / 1e6); err != nil {
		return fmt.Errorf("%s: dur: %w", where, err)
	}
	stage, err := inputfile.ParseIndex(m[1], MaxStages-1)
	if err != nil {
		return fmt.Errorf("%s: stage: %w", where, err)
	}
	if _, err := inputfile.ParseIndex(m[3], maxMicrobatch); err != nil {
		return fmt.Errorf("%s: microbatch: %w", where, err)
	}
	if p.sum == nil {
		p.sum, p.count = map[regionKey]float64{}, map[regionKey]int{}
	}
	k := regionKey{stage, m[2]}
	p.sum[k] += *e.Dur / 1e6
	p.count[k]++
	return nil
}

// merge adds q's regions to p's.
func (p *profileSums) merge(q profileSums) {
	if p.sum == nil {
		p.sum, p.count = map[regionKey]float64{}, map[regionKey]int{}
	}
	for k, n := range q.count {
		p.sum[k] += q.sum[k]
		p.count[k] += n
	}
}

func (p *profileSums) mean(stage int, kind string) (float64, bool) {
	k := regionKey{stage, kind}
	if p.count[k] == 0 {
		return 0, false
	}
	return p.sum[k] / float64(p.count[k]), true
}

// measured turns the sums into per-stage times.
func (p *profileSums) measured(source string) (Measured, error) {
	stages := 0
	for k := range p.count {
		stages = max(stages, k.stage+1)
	}
	m := Measured{Source: source}
	for s := range stages {
		var st Stage
		var ok bool
		if st.TF, ok = p.mean(s, "F"); !ok {
			return Measured{}, fmt.Errorf("%s: stage %d has no F regions (PP:%dF<microbatch>); stages 0 to %d were seen", source, s, s, stages-1)
		}
		tb, hasI := p.mean(s, "I")
		tw, hasW := p.mean(s, "W")
		full, hasB := p.mean(s, "B")
		switch {
		case hasI && hasW:
			st.TB, st.TW = tb, tw
		case hasI:
			return Measured{}, fmt.Errorf("%s: stage %d has I regions but no W regions (PP:%dW<microbatch>)", source, s, s)
		case hasB:
			st.TB = full
		default:
			return Measured{}, fmt.Errorf("%s: stage %d has no backward regions (PP:%dB<microbatch>, or PP:%dI and PP:%dW)", source, s, s, s, s)
		}
		m.Stages = append(m.Stages, st)
	}
	for s := range stages - 1 {
		k1, k2 := regionKey{s, "SEND_F"}, regionKey{s + 1, "SEND_B"}
		if n := p.count[k1] + p.count[k2]; n > 0 {
			m.Comm = append(m.Comm, (p.sum[k1]+p.sum[k2])/float64(n))
		} else {
			m.Comm = append(m.Comm, 0)
		}
	}
	return m, nil
}

// maxMicrobatch bounds a region's microbatch index, as schedule files
// bound theirs (pipeline's maxIndex, 2^30).
const maxMicrobatch = 1 << 30

// eventWindow refuses an event longer than inputfile.TraceEvent: the JSON
// decoder holds one whole value in memory, so without it a trace of one
// endless string would grow without bound. start marks where an event
// begins; the decoder's read-ahead counts towards the next event, so the
// bound is loose by one buffer, never unbounded.
type eventWindow struct {
	r    io.Reader
	name string
	n    int64
}

func (w *eventWindow) start() { w.n = 0 }

func (w *eventWindow) Read(p []byte) (int, error) {
	if w.n > inputfile.TraceEvent {
		return 0, &inputfile.TooLarge{Name: w.name, What: "trace event", Cap: inputfile.TraceEvent}
	}
	n, err := w.r.Read(p)
	w.n += int64(n)
	return n, err
}
