package experiments

import (
	"errors"
	"strings"
	"testing"
)

// TestStreamNameIsChecked: a stream's data set is named after its file,
// and that name becomes part of file names (the plots'), so it is checked
// as an experiment key is (issue 39: ".yaml" gave ".", a newline in the
// file's name went through).
func TestStreamNameIsChecked(t *testing.T) {
	specs := []*Spec{{Name: "a"}, {Name: "b"}}
	for _, bad := range []string{"dir/.yaml", "dir/\n.yaml", "dir/-x.yaml", "dir/" + strings.Repeat("x", 101) + ".yaml"} {
		if name, err := StreamName(bad, specs); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "rename the file") {
			t.Errorf("StreamName(%q) = %q, %v; want a bad-input refusal", bad, name, err)
		}
	}
	if name, err := StreamName("dir/fig.v2.yaml", specs); name != "fig.v2" || err != nil {
		t.Errorf("StreamName(dir/fig.v2.yaml) = %q, %v; want fig.v2", name, err)
	}
	if name, err := StreamName("dir/.yaml", specs[:1]); name != "a" || err != nil {
		t.Errorf("one spec: %q, %v; want its own name a", name, err)
	}
}
