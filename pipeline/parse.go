package pipeline

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// actionPattern is the grammar of one action in torch.distributed.pipelining
// (docs/reference.md §3): stage index, kind, optional microbatch index, anchored
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
