package experiments

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/pipelab/pipelab/optim"
	"github.com/pipelab/pipelab/results"
)

// PlotDir draws the plots of a results directory from its Parquet tables
// alone, each as PNG and SVG beside the tables, and returns the files
// written (without extension). What is drawn follows from the rows:
//   - delay statistics: the delays against S with the S² - S/2 curve;
//   - runs, for each experiment and cost model: the time to the target
//     loss (when some run other than RPD reached one), the loss against
//     simulated time (when the runs have at most two stage counts, RPD's
//     left out), the loss against block updates in its place (when RPD is
//     among the methods at one stage count), and the final loss against S
//     (when there are several stage counts), or, when the runs are PipeDream
//     and LocalSGD over several data sizes n or noise levels σ, the regime
//     map of their gap (results.PlotRegimeMap) alone;
//   - schedule metrics: one comparison chart per shape and cost model, and
//     a Gantt chart of every timed schedule;
//   - runs of the gap figures (staleness-law-*, optimizers-under-delay):
//     in place of their curves, the gaps against sync and the exponent
//     fits, as tables (results.GapsFile, results.FitsFile) and plots
//     (plotGapFigures).
//
// Beside the plots it writes the claims table (results.ClaimsFile): every
// comparison the runs hold, under the one significance rule
// (results.Claims), so a figure's claims are computed from its runs.
//
// A directory without tables whose subdirectories have them (the output
// of reproduce) is plotted subdirectory by subdirectory.
func PlotDir(dir string) ([]string, error) {
	t, err := results.ReadDir(dir)
	if err != nil {
		subs, serr := tableSubdirs(dir)
		if serr != nil || len(subs) == 0 {
			return nil, fmt.Errorf("experiments: %w", err)
		}
		var all []string
		for _, s := range subs {
			files, err := PlotDir(s)
			if err != nil {
				return all, err
			}
			all = append(all, files...)
		}
		return all, nil
	}
	return plotTables(dir, t)
}

// writeClaims writes the claims of runs to dir's results.ClaimsFile, when
// they have any.
func writeClaims(dir string, runs []results.Run) error {
	claims, err := results.Claims(runs)
	if err != nil || len(claims) == 0 {
		return err
	}
	return results.WriteClaims(filepath.Join(dir, results.ClaimsFile), claims)
}

// tableSubdirs lists the subdirectories of dir that hold result tables.
func tableSubdirs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		for _, f := range []string{results.RunsFile, results.DelaysFile, results.SchedulesFile} {
			if _, err := os.Stat(filepath.Join(sub, f)); !errors.Is(err, fs.ErrNotExist) {
				out = append(out, sub)
				break
			}
		}
	}
	return out, nil
}

// both draws one figure as name.png and name.svg in dir.
func both(dir, name string, draw func(path string) error) error {
	for _, ext := range []string{".png", ".svg"} {
		if err := draw(filepath.Join(dir, name+ext)); err != nil {
			return fmt.Errorf("experiments: %w", err)
		}
	}
	return nil
}

func plotTables(dir string, t *results.Tables) ([]string, error) {
	var files []string
	add := func(name string, draw func(path string) error) error {
		if err := both(dir, name, draw); err != nil {
			return err
		}
		files = append(files, filepath.Join(dir, name))
		return nil
	}
	overall, profiles := results.SplitDelayProfiles(t.Delays)
	if len(overall) > 0 {
		if err := add("delays", func(p string) error { return results.PlotDelays(p, overall) }); err != nil {
			return files, err
		}
	}
	if len(profiles) > 0 {
		if err := add("delay-profiles", func(p string) error { return results.PlotDelayProfiles(p, profiles) }); err != nil {
			return files, err
		}
	}
	if err := writeClaims(dir, t.Runs); err != nil {
		return files, err
	}
	if err := plotGapFigures(dir, t, add); err != nil {
		return files, err
	}
	for _, g := range runGroups(t.Runs) {
		if isGapExperiment(g.experiment) {
			continue // drawn as gaps against sync by plotGapFigures
		}
		if g.experiment != "" && !IsSafeName(g.experiment) {
			// Tables written by hand or by a build that let such names be.
			return files, fmt.Errorf("the runs table names the experiment %s, which is not a usable file name: nothing plotted for it", quoteShort(g.experiment))
		}
		prefix := g.experiment + "-" + g.cost
		if results.RegimeRuns(g.runs) {
			// Several data sizes or noise levels: the regime map, the gap
			// per S, n and σ, in place of curves that would mix them.
			if err := add(prefix+"-regime-map", func(p string) error { return results.PlotRegimeMap(p, g.runs) }); err != nil {
				return files, err
			}
			continue
		}
		refs := lmReferences(g.experiment, g.runs) // charlm_reference.go
		if results.HasMeasuredDelays(g.runs) {
			if err := add(prefix+"-delay-models", func(p string) error { return results.PlotDelayModels(p, g.runs, t.Curves, refs...) }); err != nil {
				return files, err
			}
		}
		stages := distinctStages(g.runs)
		model := results.WithModel(lmTitle(g.experiment, g.runs))
		// RPD has no timeline: a group with RPD runs is compared against
		// block updates only, never on a simulated-time axis.
		hasRPD := slices.ContainsFunc(g.runs, func(r results.Run) bool { return methodOf(r.Method).Replay == optim.ReplaySampled })
		if len(stages) <= 2 && !hasRPD {
			if err := add(prefix+"-loss-vs-time", func(p string) error {
				return results.PlotLossVsTime(p, g.runs, t.Curves, append(refs, results.WithClock(runsClock(g.runs)), model)...)
			}); err != nil {
				return files, err
			}
		}
		if hasRPD && len(stages) == 1 {
			if err := add(prefix+"-loss-vs-updates", func(p string) error { return results.PlotLossVsUpdates(p, g.runs, t.Curves, refs...) }); err != nil {
				return files, err
			}
		}
		if slices.ContainsFunc(g.runs, func(r results.Run) bool {
			return methodOf(r.Method).Replay != optim.ReplaySampled && !math.IsNaN(r.TimeToTarget)
		}) {
			if err := add(prefix+"-time-to-target", func(p string) error {
				return results.PlotTimeToTarget(p, g.runs, results.WithClock(runsClock(g.runs)), model)
			}); err != nil {
				return files, err
			}
		}
		if len(stages) > 1 {
			if err := add(prefix+"-final-vs-stages", func(p string) error {
				return results.PlotFinalVsStages(p, g.runs, append(refs, results.WithClock(runsClock(g.runs)), model)...)
			}); err != nil {
				return files, err
			}
		}
	}
	groups := scheduleGroups(t.Schedules)
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		complete, simulated := splitLevels(groups[k])
		if len(complete) > 0 {
			if err := add("schedules_"+k, func(p string) error {
				return results.PlotScheduleComparison(p, complete, results.WithClock(scheduleClock(k)))
			}); err != nil {
				return files, err
			}
		}
		if simulated != nil {
			if err := add("schedules_"+k+"_simulated", func(p string) error {
				return results.PlotScheduleComparison(p, simulated, results.WithClock(scheduleClock(k)))
			}); err != nil {
				return files, err
			}
		}
	}
	ids := map[string]bool{}
	for _, e := range t.Timeline {
		ids[e.ScheduleID] = true
	}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		if err := add("gantt-"+id, func(p string) error {
			return results.PlotGantt(p, t.Timeline, t.Schedules, id, results.WithClock(scheduleClock(id)))
		}); err != nil {
			return files, err
		}
	}
	return files, nil
}

type runGroup struct {
	experiment, cost string
	runs             []results.Run
}

// runGroups splits runs by experiment and cost model, in sorted order.
func runGroups(runs []results.Run) []runGroup {
	var out []runGroup
	for _, r := range runs {
		i := slices.IndexFunc(out, func(g runGroup) bool { return g.experiment == r.Experiment && g.cost == r.CostModel })
		if i < 0 {
			out = append(out, runGroup{experiment: r.Experiment, cost: r.CostModel})
			i = len(out) - 1
		}
		out[i].runs = append(out[i].runs, r)
	}
	slices.SortFunc(out, func(a, b runGroup) int {
		return cmp.Or(cmp.Compare(a.experiment, b.experiment), cmp.Compare(a.cost, b.cost))
	})
	return out
}

func distinctStages(runs []results.Run) []int32 {
	var s []int32
	for _, r := range runs {
		if !slices.Contains(s, r.Stages) {
			s = append(s, r.Stages)
		}
	}
	return s
}

// splitLevels returns the rows of the families priced at every level the
// comparison has and, when some family lacks a level (no closed form, or
// no lockstep run), also every family's simulated row, so that no family
// is left out of every chart.
func splitLevels(ms []results.ScheduleMetric) (complete, simulated []results.ScheduleMetric) {
	levels := map[string]bool{}
	perFamily := map[string]int{}
	for _, m := range ms {
		levels[m.Level] = true
		perFamily[m.Family]++
	}
	for _, m := range ms {
		if perFamily[m.Family] == len(levels) {
			complete = append(complete, m)
		}
	}
	if len(complete) == len(ms) {
		return complete, nil
	}
	for _, m := range ms {
		if m.Level == results.LevelSimulated {
			simulated = append(simulated, m)
		}
	}
	return complete, simulated
}

// scheduleGroups splits metrics by comparison (timing and shape, the
// leading part of their schedule ids); callers sort the keys to draw in a
// fixed order.
func scheduleGroups(ms []results.ScheduleMetric) map[string][]results.ScheduleMetric {
	out := map[string][]results.ScheduleMetric{}
	for _, m := range ms {
		k := scheduleComparison(m.ScheduleID)
		out[k] = append(out[k], m)
	}
	return out
}
