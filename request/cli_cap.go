package request

import (
	"fmt"
	"strconv"
	"strings"
)

// capFlag is simulate --cap: an absolute cap N on the activations a rank
// may hold under the ready policy (0: the rank's peak under the fixed
// order), or +K above that peak (sim.Options.ActivationCap and
// ActivationSlack).
type capFlag struct {
	cap, slack int
	relative   bool
}

func (c *capFlag) String() string {
	if c.relative {
		return "+" + strconv.Itoa(c.slack)
	}
	return strconv.Itoa(c.cap)
}

func (c *capFlag) Set(v string) error {
	digits, relative := strings.CutPrefix(v, "+")
	n, err := strconv.Atoi(digits)
	switch {
	case err != nil || strings.HasPrefix(digits, "+") || strings.HasPrefix(digits, "-"):
		return fmt.Errorf("want N (activations; 0 for the fixed order's peak) or +K (K above that peak), got %q", v)
	case relative:
		*c = capFlag{slack: n, relative: true}
	default:
		*c = capFlag{cap: n}
	}
	return nil
}
