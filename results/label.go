package results

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// runLabels names each run in a legend: its method, then each setting that
// differs among the plotted runs of that method (optimizer, stages, δ, replicas, local
// steps, batch size), then always its step size, as a power of two where it
// is one ("pipedream, γ = 2^-5", "rpd, δ = 60, γ = 2^-3"), so that every line
// is told apart by what distinguishes it and says what step it ran with.
// Every run has its own derived seed, so the seed tells lines apart only
// when nothing else does (replicates of one setting); those get "#k", their
// rank by seed, instead of a 20-digit number.
func runLabels(runs []Run) []string {
	settings := []struct {
		name  string
		value func(*Run) string
	}{
		{"", func(r *Run) string { return r.Optimizer }},
		{"S", func(r *Run) string { return strconv.Itoa(int(r.Stages)) }},
		{"δ", func(r *Run) string { return strconv.Itoa(int(r.Delta)) }},
		{"delays", func(r *Run) string { return r.DelayModel }},
		{"R", func(r *Run) string { return strconv.Itoa(int(r.Replicas)) }},
		{"H", func(r *Run) string { return strconv.Itoa(int(r.LocalSteps)) }},
		{"B", func(r *Run) string { return strconv.Itoa(int(r.BatchSize)) }},
	}
	labels := make([]string, len(runs))
	for i := range runs {
		parts := []string{runs[i].Method}
		for _, s := range settings {
			mine := s.value(&runs[i])
			for j := range runs {
				if runs[j].Method == runs[i].Method && s.value(&runs[j]) != mine {
					if s.name == "" { // the optimizer names itself
						parts = append(parts, mine)
					} else {
						parts = append(parts, s.name+" = "+mine)
					}
					break
				}
			}
		}
		parts = append(parts, "γ = "+formatStep(runs[i].StepSize))
		labels[i] = strings.Join(parts, ", ")
	}
	return numberReplicates(runs, labels)
}

// formatStep writes a step size as 2^k when it is a power of two ("2^-5",
// "2^0", "2^3"), exactly; otherwise as its value to four significant
// digits ("0.03", "0.1234").
func formatStep(step float64) string {
	if frac, exp := math.Frexp(step); frac == 0.5 && step > 0 {
		return "2^" + strconv.Itoa(exp-1)
	}
	return strconv.FormatFloat(step, 'g', 4, 64)
}

// numberReplicates appends "#k" to labels shared by several runs, k being
// the run's rank by seed among them, so the numbering does not depend on
// the order the runs were read in.
func numberReplicates(runs []Run, labels []string) []string {
	same := map[string][]uint64{}
	for i, l := range labels {
		same[l] = append(same[l], runs[i].Seed)
	}
	out := make([]string, len(labels))
	for i, l := range labels {
		seeds := same[l]
		if len(seeds) == 1 {
			out[i] = l
			continue
		}
		slices.Sort(seeds)
		k, _ := slices.BinarySearch(seeds, runs[i].Seed)
		out[i] = fmt.Sprintf("%s #%d", l, k+1)
	}
	return out
}

// distinct returns the sorted distinct values of f over runs.
func distinct(runs []Run, f func(*Run) string) []string {
	var out []string
	for i := range runs {
		if v := f(&runs[i]); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// describe joins the distinct values of f over runs for a title
// ("logistic", "quadratic, tridiagonal").
func describe(runs []Run, f func(*Run) string) string {
	return strings.Join(distinct(runs, f), ", ")
}

// formatTime formats a simulated time for a title.
func formatTime(v float64, costModel string) string {
	return fmt.Sprintf("%s %s", strconv.FormatFloat(v, 'g', 6, 64), timeUnit(costModel))
}
