package results

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
)

// GapCell is one cell of a regime map: LocalSGD against PipeDream at one
// stage count S, data size n and noise σ, under one cost model and budget,
// each method at the step size the recorded rule selected.
type GapCell struct {
	CostModel  string
	TimeBudget float64
	Stages     int32
	N          int32
	Noise      float64
	// PipeDream and LocalSGD are the methods' final losses f(x) per
	// replicate, in replicate order, over the replicates where both
	// finished (neither diverged).
	PipeDream, LocalSGD []float64
	// Replicates are the replicate numbers of those pairs.
	Replicates []int32
}

// Gaps returns LocalSGD's final loss minus PipeDream's, paired by
// replicate (the same data set), in replicate order.
func (c GapCell) Gaps() []float64 {
	out := make([]float64, len(c.PipeDream))
	for i := range out {
		out[i] = c.LocalSGD[i] - c.PipeDream[i]
	}
	return out
}

// mean returns the mean of xs (NaN when empty).
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Paired is the cell's paired gap under the one significance rule
// (PairedDifferences): its mean, 95 % t interval and the replicates whose
// gap has the mean's sign.
func (c GapCell) Paired() Paired { return PairedDifferences(c.Gaps()) }

// LogRatio returns log2 of LocalSGD's mean final loss over PipeDream's:
// negative where LocalSGD ends lower, -1 at half PipeDream's loss.
func (c GapCell) LogRatio() float64 {
	return math.Log2(mean(c.LocalSGD) / mean(c.PipeDream))
}

type gapKey struct {
	cost   string
	budget float64
	stages int32
	n      int32
	noise  float64
}

// RegimeRuns reports whether runs form a regime map: PipeDream and
// LocalSGD with one H only, over more than one data size n or noise σ.
func RegimeRuns(runs []Run) bool {
	var sizes, noises, hs []float64
	for _, r := range runs {
		switch r.Method {
		case "pipedream":
		case "localsgd":
			if !slices.Contains(hs, float64(r.LocalSteps)) {
				hs = append(hs, float64(r.LocalSteps))
			}
		default:
			return false
		}
		if !slices.Contains(sizes, float64(r.N)) {
			sizes = append(sizes, float64(r.N))
		}
		if !slices.Contains(noises, r.Noise) {
			noises = append(noises, r.Noise)
		}
	}
	return len(hs) == 1 && (len(sizes) > 1 || len(noises) > 1)
}

// RegimeCells pairs the selected PipeDream and LocalSGD runs (Selected
// set, as experiments.SelectSteps leaves them) by cost model, budget, S,
// n, σ and replicate, in that order. A replicate where either method
// diverged or has no selected run is left out of its cell; a cell with no
// pair left is left out. Two selected runs of one method in one cell and
// replicate (several LocalSGD H, or no selection made) are an error.
func RegimeCells(runs []Run) ([]GapCell, error) {
	type pair struct{ pd, local *Run }
	byKey := map[gapKey]map[int32]*pair{}
	for i := range runs {
		r := &runs[i]
		if !r.Selected || (r.Method != "pipedream" && r.Method != "localsgd") {
			continue
		}
		k := gapKey{r.CostModel, r.TimeBudget, r.Stages, r.N, r.Noise}
		if byKey[k] == nil {
			byKey[k] = map[int32]*pair{}
		}
		p := byKey[k][r.Replicate]
		if p == nil {
			p = &pair{}
			byKey[k][r.Replicate] = p
		}
		slot := &p.pd
		if r.Method == "localsgd" {
			slot = &p.local
		}
		if *slot != nil {
			return nil, fmt.Errorf("results: runs %s and %s: two selected %s runs at S = %d, n = %d, σ = %g, replicate %d",
				(*slot).RunID, r.RunID, r.Method, r.Stages, r.N, r.Noise, r.Replicate)
		}
		*slot = r
	}
	var cells []GapCell
	for k, reps := range byKey {
		c := GapCell{CostModel: k.cost, TimeBudget: k.budget, Stages: k.stages, N: k.n, Noise: k.noise}
		for _, rep := range slices.Sorted(maps.Keys(reps)) {
			p := reps[rep]
			if p.pd == nil || p.local == nil || p.pd.Diverged() || p.local.Diverged() {
				continue
			}
			c.PipeDream = append(c.PipeDream, p.pd.FinalLoss)
			c.LocalSGD = append(c.LocalSGD, p.local.FinalLoss)
			c.Replicates = append(c.Replicates, rep)
		}
		if len(c.Replicates) > 0 {
			cells = append(cells, c)
		}
	}
	slices.SortFunc(cells, func(a, b GapCell) int {
		return cmp.Or(cmp.Compare(a.CostModel, b.CostModel), cmp.Compare(a.TimeBudget, b.TimeBudget),
			cmp.Compare(a.Stages, b.Stages), cmp.Compare(a.N, b.N), cmp.Compare(a.Noise, b.Noise))
	})
	return cells, nil
}
