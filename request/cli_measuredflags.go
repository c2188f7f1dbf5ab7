package request

import (
	"flag"
	"fmt"
	"strings"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// MeasuredFlags take measured per-stage costs: --costs FILE.csv or
// --profile TRACE.json (repeatable, one trace per rank).
type MeasuredFlags struct {
	Costs    string
	Profiles []string
	// Read is what check read.
	Read cost.Measured
}

func (m *MeasuredFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&m.Costs, "costs", "", "measured per-stage times, CSV: "+strings.Join(cost.CostsColumns, ",")+" (ms; docs/presets.md)")
	fs.Func("profile", "a PyTorch profiler (Kineto) Chrome trace of one iteration, or pipelab's own --trace, to read per-stage F/B/W and transfer times from (repeatable: one per rank)", func(v string) error {
		m.Profiles = append(m.Profiles, v)
		return nil
	})
	MarkFiles(fs, ReadsFile, nil, "costs", "profile")
}

func (m *MeasuredFlags) Given() bool { return m.Costs != "" || len(m.Profiles) > 0 }

// check reads the file(s), naming the flag of a bad one.
func (m *MeasuredFlags) Check() error {
	var err error
	switch {
	case m.Costs != "" && len(m.Profiles) > 0:
		return fmt.Errorf("--costs and --profile exclude each other")
	case m.Costs != "":
		if m.Read, err = cost.ReadCostsCSV(m.Costs); err != nil {
			return fmt.Errorf("--costs: %w", err)
		}
	default:
		if m.Read, err = cost.ReadProfile(m.Profiles...); err != nil {
			return fmt.Errorf("--profile: %w", err)
		}
	}
	return nil
}

// fits checks that the measurements have one stage per stage of t, when
// there are measurements.
func (m *MeasuredFlags) Fits(t *pipeline.Table) error {
	if !m.Given() {
		return nil
	}
	_, err := m.PricingFor(t)
	return err
}

// pricingFor prices t with the measured times; the formulas take the
// mean stage times times t's model parts per rank as one rank's share.
func (m *MeasuredFlags) PricingFor(t *pipeline.Table) (pricing, error) {
	flagName := "--costs"
	if len(m.Profiles) > 0 {
		flagName = "--profile"
	}
	e, err := m.Read.ForTable(t)
	if err != nil {
		return pricing{}, fmt.Errorf("%s: %w", flagName, err)
	}
	mean, comm := m.Read.Mean()
	f := cost.UnitShare(t).TF // model parts per rank
	share := cost.Stage{TF: mean.TF * f, TB: mean.TB * f, TW: mean.TW * f}
	return pricing{Cost: e, Share: share,
		Name: fmt.Sprintf("measured (%s: %d stages, mean T_F %.4g, T_B %.4g, T_W %.4g ms, message %.4g ms; seconds)",
			m.Read.Source, len(m.Read.Stages), 1e3*mean.TF, 1e3*mean.TB, 1e3*mean.TW, 1e3*comm)}, nil
}
