package experiments

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/pipelab/pipelab/results"
)

// Experiment-name prefixes of the gap figures, whose runs are drawn as
// gaps against sync (plotGapFigures) rather than as curves.
const (
	lawPrefix        = "staleness-law-"
	optimizersPrefix = "optimizers-under-delay"
)

// isGapExperiment reports whether an experiment belongs to a gap figure.
func isGapExperiment(name string) bool {
	return strings.HasPrefix(name, lawPrefix) || strings.HasPrefix(name, optimizersPrefix)
}

// plotGapFigures writes the gaps and fits tables (results.GapsFile,
// results.FitsFile) of the gap figures' runs in t and draws them with add:
// staleness-law (gap against S per objective, with the fitted exponent),
// staleness-law-k (against K) and optimizers-under-delay (gap per
// optimizer against S). Runs of other experiments are left alone; without
// gap-figure runs it does nothing.
func plotGapFigures(dir string, t *results.Tables, add func(name string, draw func(string) error) error) error {
	runs := slices.DeleteFunc(slices.Clone(t.Runs), func(r results.Run) bool { return !isGapExperiment(r.Experiment) })
	if len(runs) == 0 {
		return nil
	}
	gaps, err := results.Gaps(runs, t.Curves, "sync")
	if err != nil {
		return err
	}
	var lawGaps []results.Gap
	for _, g := range gaps {
		if strings.HasPrefix(g.Experiment, lawPrefix) {
			lawGaps = append(lawGaps, g)
		}
	}
	fits := results.Fits(lawGaps) // the optimizers' two or three S are no law to fit
	if err := results.WriteGaps(filepath.Join(dir, results.GapsFile), gaps); err != nil {
		return err
	}
	if err := results.WriteFits(filepath.Join(dir, results.FitsFile), fits); err != nil {
		return err
	}
	notes := map[string]string{}
	for _, r := range runs {
		if objectiveOf(r.Objective).LM && notes[r.Experiment] == "" {
			notes[r.Experiment] = lmNote(runs, r.Experiment)
		}
	}
	var law, lawK, opt []results.Gap
	for _, g := range gaps {
		if !strings.HasPrefix(g.Experiment, lawPrefix) {
			opt = append(opt, g)
			continue
		}
		// A law experiment holds a series over S at its K and one over K
		// at one S; a row at that S and K is in both.
		var stagesAtK, ksAtS int
		for _, h := range gaps {
			if h.Experiment == g.Experiment && h.Method == g.Method && h.Optimizer == g.Optimizer {
				if h.TotalMicrobatches == g.TotalMicrobatches {
					stagesAtK++
				}
				if h.Stages == g.Stages {
					ksAtS++
				}
			}
		}
		if stagesAtK > 1 {
			law = append(law, g)
		}
		if ksAtS > 1 {
			lawK = append(lawK, g)
		}
	}
	if len(law) > 0 {
		if err := add("staleness-law", func(p string) error { return results.PlotGapLaw(p, law, fits, results.FitStages, notes) }); err != nil {
			return err
		}
	}
	if len(lawK) > 0 {
		if err := add("staleness-law-k", func(p string) error {
			return results.PlotGapLaw(p, lawK, fits, results.FitTotalMicrobatches, notes)
		}); err != nil {
			return err
		}
	}
	if len(opt) > 0 {
		if err := add("optimizers-under-delay", func(p string) error {
			return results.PlotGapByOptimizer(p, opt, notes[opt[0].Experiment])
		}); err != nil {
			return err
		}
	}
	return nil
}

// lmNote states an LM experiment's model size and tokens seen, for its
// titles: lmTitle over the experiment's runs (the parameters at each S
// the runs have, as the model deepens with S, and the characters a run
// saw), the same words the other LM figures' titles use.
func lmNote(runs []results.Run, experiment string) string {
	var mine []results.Run
	for _, r := range runs {
		if r.Experiment == experiment {
			mine = append(mine, r)
		}
	}
	return lmTitle(experiment, mine)
}
