package results

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// runLabels names each run in a legend: its method, then each setting that
// differs among the plotted runs of that method (stages, δ, replicas, local
// steps, step size, batch size, seed), so that every line is told apart
// by what distinguishes it and nothing more.
func runLabels(runs []Run) []string {
	settings := []struct {
		name  string
		value func(*Run) string
	}{
		{"S=", func(r *Run) string { return strconv.Itoa(int(r.Stages)) }},
		{"δ=", func(r *Run) string { return strconv.Itoa(int(r.Delta)) }},
		{"R=", func(r *Run) string { return strconv.Itoa(int(r.Replicas)) }},
		{"H=", func(r *Run) string { return strconv.Itoa(int(r.LocalSteps)) }},
		{"γ=", func(r *Run) string { return strconv.FormatFloat(r.StepSize, 'g', 4, 64) }},
		{"B=", func(r *Run) string { return strconv.Itoa(int(r.BatchSize)) }},
		{"seed ", func(r *Run) string { return strconv.FormatUint(r.Seed, 10) }},
	}
	labels := make([]string, len(runs))
	for i := range runs {
		parts := []string{runs[i].Method}
		for _, s := range settings {
			mine := s.value(&runs[i])
			for j := range runs {
				if runs[j].Method == runs[i].Method && s.value(&runs[j]) != mine {
					parts = append(parts, s.name+mine)
					break
				}
			}
		}
		labels[i] = strings.Join(parts, " ")
	}
	return labels
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
