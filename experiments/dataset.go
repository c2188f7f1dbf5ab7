package experiments

import (
	"fmt"

	"github.com/pipelab/pipelab/results"
)

// Stamp ties a run's rows, in every table, to its id and experiment, and
// records its wall-clock time: what a sweep does to a run's output before
// it records it.
func Stamp(out *results.Tables, r Run, wall float64) {
	for i := range out.Runs {
		out.Runs[i].RunID = r.ID
		out.Runs[i].WallSeconds = wall
	}
	for i := range out.Curves {
		out.Curves[i].RunID, out.Curves[i].Experiment = r.ID, r.Spec
	}
	for i := range out.Delays {
		out.Delays[i].RunID, out.Delays[i].Experiment = r.ID, r.Spec
	}
	for i := range out.DelayRows {
		out.DelayRows[i].RunID, out.DelayRows[i].Experiment = r.ID, r.Spec
	}
	for i := range out.Timeline {
		out.Timeline[i].RunID, out.Timeline[i].Experiment = r.ID, r.Spec
	}
	for i := range out.Schedules {
		out.Schedules[i].RunID, out.Schedules[i].Experiment = r.ID, r.Spec
	}
}

// AppendTables adds the rows of o to d.
func AppendTables(d, o *results.Tables) {
	d.Runs = append(d.Runs, o.Runs...)
	d.Curves = append(d.Curves, o.Curves...)
	d.Delays = append(d.Delays, o.Delays...)
	d.DelayRows = append(d.DelayRows, o.DelayRows...)
	d.Timeline = append(d.Timeline, o.Timeline...)
	d.Schedules = append(d.Schedules, o.Schedules...)
}

// rankFamilies ranks the families within each comparison (timing and
// shape, scheduleComparison): results.RankKinds alone would rank GPU
// timings over different links together, as their cost model column is
// the same.
func rankFamilies(ms []results.ScheduleMetric) {
	groups := map[string][]int{}
	for i, m := range ms {
		k := scheduleComparison(m.ScheduleID)
		groups[k] = append(groups[k], i)
	}
	for _, idx := range groups {
		g := make([]results.ScheduleMetric, len(idx))
		for j, i := range idx {
			g[j] = ms[i]
		}
		results.RankKinds(g)
		for j, i := range idx {
			ms[i].KindRank = g[j].KindRank
		}
	}
}

// WriteDataset chooses the step sizes (SelectSteps), ranks the schedule
// families and writes the non-empty tables into dir; the writers sort the
// rows, so the files do not depend on the order the runs finished in. A
// sweep and a merge write their gathered runs with it.
func WriteDataset(dir string, d *results.Tables) error {
	if err := SelectSteps(d.Runs, d.Curves); err != nil {
		return err
	}
	rankFamilies(d.Schedules)
	if err := results.WriteDir(dir, d); err != nil {
		return fmt.Errorf("experiments: %w", err)
	}
	return nil
}
