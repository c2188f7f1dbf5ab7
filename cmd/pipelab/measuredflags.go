package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/pipelab/pipelab/pipeline"
	"github.com/pipelab/pipelab/pipeline/cost"
)

// measuredFlags take measured per-stage costs: --costs FILE.csv or
// --profile TRACE.json (repeatable, one trace per rank).
type measuredFlags struct {
	costs    string
	profiles []string
	// read is what check read.
	read cost.Measured
}

func (m *measuredFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.costs, "costs", "", "measured per-stage times, CSV: "+strings.Join(cost.CostsColumns, ",")+" (ms; docs/presets.md)")
	fs.Func("profile", "a PyTorch profiler (Kineto) Chrome trace of one iteration, or pipelab's own --trace, to read per-stage F/B/W and transfer times from (repeatable: one per rank)", func(v string) error {
		m.profiles = append(m.profiles, v)
		return nil
	})
	markFiles(fs, readsFile, nil, "costs", "profile")
}

func (m *measuredFlags) given() bool { return m.costs != "" || len(m.profiles) > 0 }

// check reads the file(s), naming the flag of a bad one.
func (m *measuredFlags) check() error {
	var err error
	switch {
	case m.costs != "" && len(m.profiles) > 0:
		return fmt.Errorf("--costs and --profile exclude each other")
	case m.costs != "":
		if m.read, err = cost.ReadCostsCSV(m.costs); err != nil {
			return fmt.Errorf("--costs: %w", err)
		}
	default:
		if m.read, err = cost.ReadProfile(m.profiles...); err != nil {
			return fmt.Errorf("--profile: %w", err)
		}
	}
	return nil
}

// fits checks that the measurements have one stage per stage of t, when
// there are measurements.
func (m *measuredFlags) fits(t *pipeline.Table) error {
	if !m.given() {
		return nil
	}
	_, err := m.pricingFor(t)
	return err
}

// pricingFor prices t with the measured times; the formulas take the
// mean stage times times t's model parts per rank as one rank's share.
func (m *measuredFlags) pricingFor(t *pipeline.Table) (pricing, error) {
	flagName := "--costs"
	if len(m.profiles) > 0 {
		flagName = "--profile"
	}
	e, err := m.read.ForTable(t)
	if err != nil {
		return pricing{}, fmt.Errorf("%s: %w", flagName, err)
	}
	mean, comm := m.read.Mean()
	f := cost.UnitShare(t).TF // model parts per rank
	share := cost.Stage{TF: mean.TF * f, TB: mean.TB * f, TW: mean.TW * f}
	return pricing{cost: e, share: share,
		name: fmt.Sprintf("measured (%s: %d stages, mean T_F %.4g, T_B %.4g, T_W %.4g ms, message %.4g ms; seconds)",
			m.read.Source, len(m.read.Stages), 1e3*mean.TF, 1e3*mean.TB, 1e3*mean.TW, 1e3*comm)}, nil
}
