package cost

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/pipelab/pipelab/internal/inputfile"
)

// Hardware is a cluster as a hardware file describes it: the GPU of every
// rank with its achieved efficiency, the link between ranks of one node
// and, for a cluster of several nodes, the link between nodes.
//
// The file is YAML, in SI units:
//
//	gpu:
//	  name: a100-40g
//	  peak_flops: 312e12      # dense bf16, FLOP/s
//	  efficiency: 0.45        # achieved share of the peak; default DefaultEfficiency
//	  memory_bytes: 40e9
//	  memory_bandwidth: 1.555e12  # bytes per second; optional
//	  elementwise_passes: 2.4     # optional, needs memory_bandwidth
//	  action_gap: 1e-3        # optional: seconds the runtime spends between two actions of a rank
//	link:                     # between ranks of one node (every two ranks without nodes)
//	  name: nvlink3
//	  latency: 3e-6           # seconds
//	  bandwidth: 300e9        # bytes per second, each direction
//	  p2p_bandwidth: 72e9     # optional: what NCCL's send/receive achieves, at most bandwidth
//	  p2p_overhead: 2e-4      # optional: seconds a blocking transfer costs beyond latency
//	  collective_bandwidth: 230e9  # optional: NCCL's ring collectives' bus bandwidth, at most bandwidth
//	ranks_per_node: 8         # rank r is on node r / ranks_per_node
//	inter_node_link:          # between ranks of different nodes
//	  name: roce-200g
//	  latency: 8e-6
//	  bandwidth: 25e9
//
// Every gpu and link entry may carry a source. WriteHardwarePresets prints
// the GPU and link presets as entries of this form.
type Hardware struct {
	GPU GPU
	// Efficiency is the achieved share of the peak, in (0, 1]; zero
	// means DefaultEfficiency.
	Efficiency float64
	// ElementwisePasses is Parallelism.ElementwisePasses, as calibrated
	// with Efficiency (docs/validation.md); zero leaves them out.
	ElementwisePasses float64
	// ActionGap is GPUConfig.ActionGap, in seconds; zero leaves it out.
	ActionGap float64
	Link      Link
	// RanksPerNode and InterNode are GPUConfig's: zero for one node.
	RanksPerNode int
	InterNode    Link
	// Warnings lists the numbers outside their plausible range (but
	// possible), each naming the file, the line and the key, and the unit
	// the number most likely meant: the CLI prints them on stderr.
	Warnings []string
}

// Apply returns c with the hardware's GPU, efficiency, element-wise
// passes, action gap and links.
func (h Hardware) Apply(c GPUConfig) GPUConfig {
	c.GPU, c.Efficiency, c.Link = h.GPU, h.Efficiency, h.Link
	c.Parallel.ElementwisePasses, c.ActionGap = h.ElementwisePasses, h.ActionGap
	c.RanksPerNode, c.InterNode = h.RanksPerNode, h.InterNode
	return c
}

// ReadHardware reads a hardware file. A missing, negative or unknown key,
// a number that is not a decimal or outside its physical range (ranges.go),
// or a file over inputfile.Hardware bytes is an error naming the file, the
// line and the key; a number outside its plausible range is a warning in
// Hardware.Warnings.
func ReadHardware(path string) (Hardware, error) {
	b, err := inputfile.ReadFile(path, "hardware file", inputfile.Hardware)
	if err != nil {
		return Hardware{}, err
	}
	return ParseHardware(b, path)
}

// ParseHardware is ReadHardware of a file's bytes; name is the file named
// in errors.
func ParseHardware(data []byte, name string) (Hardware, error) {
	p := &hwParser{file: name}
	top, err := p.document(data, []string{"gpu", "link", "ranks_per_node", "inter_node_link"})
	if err != nil {
		return Hardware{}, err
	}
	var h Hardware
	if h.GPU, h.Efficiency, h.ElementwisePasses, h.ActionGap, err = p.gpu(top, "gpu"); err != nil {
		return Hardware{}, err
	}
	if h.Link, err = p.link(top, "link"); err != nil {
		return Hardware{}, err
	}
	_, nodes := top.values["ranks_per_node"]
	_, inter := top.values["inter_node_link"]
	switch {
	case nodes && !inter:
		return Hardware{}, p.fail(top.node, "inter_node_link", "missing: ranks_per_node splits the ranks into nodes, so the link between them is needed")
	case inter && !nodes:
		return Hardware{}, p.fail(top.node, "ranks_per_node", "missing: inter_node_link needs the number of ranks on a node")
	case nodes:
		n, err := p.number(top, "ranks_per_node", "", true)
		if err != nil {
			return Hardware{}, err
		}
		if n != math.Trunc(n) || n > 1<<20 {
			return Hardware{}, p.fail(top.values["ranks_per_node"], "ranks_per_node", "want a whole number of ranks, got %s", top.values["ranks_per_node"].Value)
		}
		h.RanksPerNode = int(n)
		if h.InterNode, err = p.link(top, "inter_node_link"); err != nil {
			return Hardware{}, err
		}
	}
	h.Warnings = p.warnings
	return h, nil
}

// hwParser reads the YAML of hardware files, naming the file, the line
// and the key of what is wrong.
type hwParser struct {
	file     string
	warnings []string
}

// section is a YAML mapping with its values by key.
type section struct {
	path   string // the key path of the mapping, "" at the top
	node   *yaml.Node
	values map[string]*yaml.Node
}

func (p *hwParser) fail(n *yaml.Node, key, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s: %s", p.file, n.Line, key, fmt.Sprintf(format, args...))
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// document parses data as one YAML mapping with the allowed keys.
func (p *hwParser) document(data []byte, allowed []string) (section, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return section{}, fmt.Errorf("%s: %s", p.file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return section{}, fmt.Errorf("%s: empty hardware file", p.file)
	}
	return p.mapping(root.Content[0], "", allowed)
}

// mapping reads node as a mapping of the allowed keys.
func (p *hwParser) mapping(node *yaml.Node, path string, allowed []string) (section, error) {
	what := path
	if what == "" {
		what = "the file"
	}
	if node.Kind != yaml.MappingNode {
		return section{}, fmt.Errorf("%s:%d: %s: want a mapping of %v", p.file, node.Line, what, allowed)
	}
	s := section{path: path, node: node, values: map[string]*yaml.Node{}}
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, v := node.Content[i], node.Content[i+1]
		key := join(path, k.Value)
		if !slices.Contains(allowed, k.Value) {
			return section{}, p.fail(k, inputfile.Name(key), "unknown key (known: %v)", allowed)
		}
		if _, dup := s.values[k.Value]; dup {
			return section{}, p.fail(k, key, "given twice")
		}
		s.values[k.Value] = v
	}
	return s, nil
}

// sub returns the mapping under key, which must be there.
func (p *hwParser) sub(s section, key string, allowed []string) (section, error) {
	v, ok := s.values[key]
	if !ok {
		return section{}, p.fail(s.node, join(s.path, key), "missing")
	}
	return p.mapping(v, join(s.path, key), allowed)
}

// number reads a number under key, above zero when positive is set and
// at least zero otherwise; def, when not empty, names the default of a key
// that may be left out (then 0 is returned).
func (p *hwParser) number(s section, key, def string, positive bool) (float64, error) {
	full := join(s.path, key)
	v, ok := s.values[key]
	if !ok {
		if def != "" {
			return 0, nil
		}
		return 0, p.fail(s.node, full, "missing")
	}
	quoted := v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
	if v.Kind != yaml.ScalarNode || quoted {
		return 0, p.fail(v, full, "want a number, got %s", inputfile.Quote(v.Value))
	}
	x, err := inputfile.ParseDecimal(v.Value)
	if err != nil {
		return 0, p.fail(v, full, "%v", err)
	}
	switch {
	case positive && x <= 0:
		return 0, p.fail(v, full, "must be positive, got %g", x)
	case x < 0:
		return 0, p.fail(v, full, "must not be negative, got %g", x)
	}
	return x, nil
}

// text reads a string under key; required says whether it may be left out.
func (p *hwParser) text(s section, key string, required bool) (string, error) {
	v, ok := s.values[key]
	switch {
	case !ok && required:
		return "", p.fail(s.node, join(s.path, key), "missing")
	case !ok:
		return "", nil
	case v.Kind != yaml.ScalarNode || v.Value == "":
		return "", p.fail(v, join(s.path, key), "want a non-empty string")
	case key == "name" && (len(v.Value) > maxName || strings.ContainsFunc(v.Value, unicode.IsControl)):
		return "", p.fail(v, join(s.path, key), "want a name of at most %d characters without control characters, got %s", maxName, inputfile.Quote(v.Value))
	}
	return v.Value, nil
}

// minPlausibleEfficiency: training runs achieve 30 to 60 % of the dense
// peak (MFU); below 5 % is more likely a slip than a measurement.
const minPlausibleEfficiency = 0.05

// maxName bounds a GPU's or a link's name, which the reports print.
const maxName = 100

// physical reads a number under key and checks it against q: an error
// outside its physical range, a warning outside its plausible one.
func (p *hwParser) physical(s section, key string, q quantity, positive bool) (float64, error) {
	x, err := p.number(s, key, "", positive)
	if err != nil {
		return 0, err
	}
	bad, warn := q.check(x)
	if bad != "" {
		return 0, p.fail(s.values[key], join(s.path, key), "%s", bad)
	}
	if warn != "" {
		p.warnings = append(p.warnings, fmt.Sprintf("%s:%d: %s: %s", p.file, s.values[key].Line, join(s.path, key), warn))
	}
	return x, nil
}

var (
	gpuKeys  = []string{"name", "peak_flops", "efficiency", "memory_bytes", "memory_bandwidth", "source"}
	linkKeys = []string{"name", "latency", "bandwidth", "p2p_bandwidth", "p2p_overhead", "collective_bandwidth", "source"}
)

// gpu reads a hardware file's GPU under key: a preset's entry with, beside
// it, the efficiency, the element-wise passes and the action gap the GPU
// achieves under its training runtime (a preset has none of them). Passes
// need the memory bandwidth they run at.
func (p *hwParser) gpu(s section, key string) (g GPU, eff, passes, gap float64, err error) {
	m, err := p.sub(s, key, append(slices.Clone(gpuKeys), "elementwise_passes", "action_gap"))
	if err != nil {
		return GPU{}, 0, 0, 0, err
	}
	if g, eff, err = p.gpuEntry(m); err != nil {
		return GPU{}, 0, 0, 0, err
	}
	if passes, err = p.number(m, "elementwise_passes", "0", false); err != nil {
		return GPU{}, 0, 0, 0, err
	}
	if passes > 0 && g.MemoryBandwidth == 0 {
		return GPU{}, 0, 0, 0, p.fail(m.values["elementwise_passes"], join(m.path, "elementwise_passes"),
			"the passes run at the memory bandwidth: give %s too", join(m.path, "memory_bandwidth"))
	}
	if _, ok := m.values["action_gap"]; ok {
		if gap, err = p.physical(m, "action_gap", actionGap, false); err != nil {
			return GPU{}, 0, 0, 0, err
		}
	}
	return g, eff, passes, gap, nil
}

func (p *hwParser) gpuEntry(m section) (GPU, float64, error) {
	var g GPU
	var err error
	if g.Name, err = p.text(m, "name", true); err != nil {
		return GPU{}, 0, err
	}
	if g.PeakFLOPS, err = p.physical(m, "peak_flops", peakFLOPS, true); err != nil {
		return GPU{}, 0, err
	}
	if g.MemoryBytes, err = p.physical(m, "memory_bytes", gpuMemory, true); err != nil {
		return GPU{}, 0, err
	}
	if _, ok := m.values["memory_bandwidth"]; ok {
		if g.MemoryBandwidth, err = p.physical(m, "memory_bandwidth", memoryBandwidth, true); err != nil {
			return GPU{}, 0, err
		}
	}
	eff, err := p.number(m, "efficiency", "DefaultEfficiency", true)
	if err != nil {
		return GPU{}, 0, err
	}
	if eff > 1 {
		return GPU{}, 0, p.fail(m.values["efficiency"], join(m.path, "efficiency"), "%g is above 1 (a share of the peak)", eff)
	}
	if eff > 0 && eff < minPlausibleEfficiency {
		p.warnings = append(p.warnings, fmt.Sprintf("%s:%d: %s: %g is below %g, implausible for the achieved share of the peak (is it a percentage? %g%% is %g)",
			p.file, m.values["efficiency"].Line, join(m.path, "efficiency"), eff, minPlausibleEfficiency, eff, eff/100))
	}
	if g.Source, err = p.text(m, "source", false); err != nil {
		return GPU{}, 0, err
	}
	return g, eff, nil
}

func (p *hwParser) link(s section, key string) (Link, error) {
	m, err := p.sub(s, key, linkKeys)
	if err != nil {
		return Link{}, err
	}
	return p.linkEntry(m)
}

func (p *hwParser) linkEntry(m section) (Link, error) {
	var l Link
	var err error
	if l.Name, err = p.text(m, "name", true); err != nil {
		return Link{}, err
	}
	if l.Latency, err = p.physical(m, "latency", latency, false); err != nil {
		return Link{}, err
	}
	if l.Bandwidth, err = p.physical(m, "bandwidth", bandwidth, true); err != nil {
		return Link{}, err
	}
	if _, ok := m.values["p2p_bandwidth"]; ok {
		if l.P2PBandwidth, err = p.physical(m, "p2p_bandwidth", bandwidth, true); err != nil {
			return Link{}, err
		}
		if l.P2PBandwidth > l.Bandwidth {
			return Link{}, p.fail(m.values["p2p_bandwidth"], join(m.path, "p2p_bandwidth"),
				"%g is above the link's bandwidth %g: a transfer cannot beat its link", l.P2PBandwidth, l.Bandwidth)
		}
	}
	if _, ok := m.values["collective_bandwidth"]; ok {
		if l.CollectiveBandwidth, err = p.physical(m, "collective_bandwidth", bandwidth, true); err != nil {
			return Link{}, err
		}
		if l.CollectiveBandwidth > l.Bandwidth {
			return Link{}, p.fail(m.values["collective_bandwidth"], join(m.path, "collective_bandwidth"),
				"%g is above the link's bandwidth %g: a collective cannot beat its link", l.CollectiveBandwidth, l.Bandwidth)
		}
	}
	if _, ok := m.values["p2p_overhead"]; ok {
		if l.P2POverhead, err = p.physical(m, "p2p_overhead", p2pOverhead, false); err != nil {
			return Link{}, err
		}
	}
	if l.Source, err = p.text(m, "source", false); err != nil {
		return Link{}, err
	}
	return l, nil
}

// WriteHardwarePresets writes the GPU and link presets as YAML lists
// (gpus, links) whose entries are what a hardware file takes under gpu and
// link (ParseHardwarePresets reads it back).
func WriteHardwarePresets(w io.Writer) error {
	gpuList := &yaml.Node{Kind: yaml.SequenceNode}
	for _, g := range gpus {
		gpuList.Content = append(gpuList.Content, gpuNode(g))
	}
	linkList := &yaml.Node{Kind: yaml.SequenceNode}
	for _, l := range links {
		linkList.Content = append(linkList.Content, linkNode(l))
	}
	doc := &yaml.Node{Kind: yaml.MappingNode, HeadComment: "The GPU and link presets, each entry in the form a --hardware file takes under gpu: and link:\n" +
		"(peak_flops in FLOP/s, dense bf16; memory_bytes in bytes; memory_bandwidth in bytes per second; latency in seconds; bandwidth in bytes per second, each direction)."}
	doc.Content = append(doc.Content, str("gpus"), gpuList, str("links"), linkList)
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("hardware presets: %w", err)
	}
	return enc.Close()
}

// ParseHardwarePresets reads what WriteHardwarePresets writes, with the
// entry rules of a hardware file (a preset GPU has no efficiency).
func ParseHardwarePresets(data []byte, name string) ([]GPU, []Link, error) {
	p := &hwParser{file: name}
	top, err := p.document(data, []string{"gpus", "links"})
	if err != nil {
		return nil, nil, err
	}
	var gs []GPU
	var ls []Link
	for _, key := range []string{"gpus", "links"} {
		seq, ok := top.values[key]
		if !ok {
			return nil, nil, p.fail(top.node, key, "missing")
		}
		if seq.Kind != yaml.SequenceNode {
			return nil, nil, p.fail(seq, key, "want a list")
		}
		for i, item := range seq.Content {
			path := fmt.Sprintf("%s[%d]", key, i)
			if key == "gpus" {
				m, err := p.mapping(item, path, slices.DeleteFunc(slices.Clone(gpuKeys), func(k string) bool { return k == "efficiency" }))
				if err != nil {
					return nil, nil, err
				}
				g, _, err := p.gpuEntry(m)
				if err != nil {
					return nil, nil, err
				}
				gs = append(gs, g)
				continue
			}
			m, err := p.mapping(item, path, linkKeys)
			if err != nil {
				return nil, nil, err
			}
			l, err := p.linkEntry(m)
			if err != nil {
				return nil, nil, err
			}
			ls = append(ls, l)
		}
	}
	return gs, ls, nil
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

func num(x float64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatFloat(x, 'g', -1, 64)}
}

func gpuNode(g GPU) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		str("name"), str(g.Name), str("peak_flops"), num(g.PeakFLOPS), str("memory_bytes"), num(g.MemoryBytes),
		str("memory_bandwidth"), num(g.MemoryBandwidth), str("source"), str(g.Source),
	}}
}

func linkNode(l Link) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		str("name"), str(l.Name), str("latency"), num(l.Latency), str("bandwidth"), num(l.Bandwidth),
	}}
	if l.CollectiveBandwidth > 0 {
		n.Content = append(n.Content, str("collective_bandwidth"), num(l.CollectiveBandwidth))
	}
	n.Content = append(n.Content, str("source"), str(l.Source))
	return n
}
