package results

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// runLabels names each run in a legend: its method, then each setting that
// differs among the plotted runs of that method (optimizer, by its name
// alone where that tells them apart: optimizerNames; stages, δ, replicas,
// local steps, batch size), then always its step size, as a power of two where it
// is one ("pipedream, γ = 2^-5", "rpd, δ = 60, γ = 2^-3"), so that every line
// is told apart by what distinguishes it and says what step it ran with.
// Every run has its own derived seed, so the seed tells lines apart only
// when nothing else does (replicates of one setting); those get "#k", their
// rank by seed, instead of a 20-digit number.
func runLabels(runs []Run) []string {
	optimizers := optimizerNames(runs)
	settings := []struct {
		name  string
		value func(*Run) string
	}{
		{"", func(r *Run) string { return optimizers[r.Optimizer] }},
		{"", func(r *Run) string { return r.MethodSettings }},
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

// optimizerNames maps each run's optimizer label ("adam b1=0.9 b2=0.999
// eps=1e-08") to what a legend writes: its name alone ("adam"), or the whole
// label when two runs' optimizers share the name and differ in their
// settings.
func optimizerNames(runs []Run) map[string]string {
	byName := map[string][]string{}
	for _, r := range runs {
		name, _, _ := strings.Cut(r.Optimizer, " ")
		if !slices.Contains(byName[name], r.Optimizer) {
			byName[name] = append(byName[name], r.Optimizer)
		}
	}
	out := map[string]string{}
	for name, labels := range byName {
		for _, l := range labels {
			out[l] = name
			if len(labels) > 1 {
				out[l] = l
			}
		}
	}
	return out
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

// compareLabels orders legend labels ("localsgd, H = 10, γ = 2^-5") part by
// part, the parts separated by ", ": two parts "name = value" of one name
// whose values are numbers (2^k included) compare by value, so that H = 2
// comes before H = 10 and γ = 2^-10 before γ = 2^-5; other parts compare
// as text, and a label that is a prefix of the other comes first.
func compareLabels(a, b string) int {
	pa, pb := strings.Split(a, ", "), strings.Split(b, ", ")
	for i := range min(len(pa), len(pb)) {
		if c := comparePart(pa[i], pb[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(pa), len(pb))
}

func comparePart(a, b string) int {
	na, va, okA := strings.Cut(a, " = ")
	nb, vb, okB := strings.Cut(b, " = ")
	if okA && okB && na == nb {
		x, errX := parseSetting(va)
		y, errY := parseSetting(vb)
		if errX == nil && errY == nil {
			return cmp.Or(cmp.Compare(x, y), cmp.Compare(a, b))
		}
	}
	return cmp.Compare(a, b)
}

// parseSetting reads a setting's value as a legend writes it: a number,
// or a power of two "2^k" (formatStep).
func parseSetting(v string) (float64, error) {
	if e, ok := strings.CutPrefix(v, "2^"); ok {
		k, err := strconv.Atoi(e)
		return math.Ldexp(1, k), err
	}
	return strconv.ParseFloat(v, 64)
}
