package request

import (
	"context"
	"fmt"
	"github.com/pipelab/pipelab/experiments/costspec"
	"github.com/pipelab/pipelab/fault"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/pipelab/pipelab/pipeline/cost"
	"github.com/pipelab/pipelab/pipeline/sim"
)

const compareDescription = `
Compares schedule families the way the tabular-schedule paper does (Barley
et al., arXiv 2605.24006), at three levels, each with its rank among the
families (1 = fastest; ties share a rank):

  formula    the closed form of the family's paper with uniform stages and
             free communication (n/a where none is known);
  lockstep   PyTorch's unit-time check of the lowered table: every action,
             SEND and RECV included, takes one step (n/a where the table
             cannot be lowered);
  simulated  the event simulation with the cost model, communication
             included.

Peak activations are in activations of one rank's share of the model (M_B):
a chunk of a family with V chunks per rank holds 1/V, an activation of one
of Chimera's replicas a whole M_B. With --model the peak memory (weights,
gradients, optimizer state and activations) is shown too. The cost flags
are those of "pipelab simulate"; --kind takes family[:chunks] items, e.g.
interleaved-1f1b:4, and zb-auto is built from those costs within
--max-activations.`

const defaultCompareKinds = "gpipe,1f1b,chimera,hanayo,zb-h1,interleaved-1f1b"

// CompareRow is one family in "pipelab compare". Ranks are 0 where the
// level has no value.
type CompareRow struct {
	Kind            string   `json:"kind"`
	Chunks          int      `json:"chunks"`
	Formula         *float64 `json:"formula"`
	FormulaRank     int      `json:"formula_rank"`
	FormulaSource   string   `json:"formula_source,omitempty"`
	Lockstep        *int     `json:"lockstep_steps"`
	LockstepRank    int      `json:"lockstep_rank"`
	Makespan        *float64 `json:"makespan"`
	MakespanRank    int      `json:"makespan_rank"`
	BubbleRatio     float64  `json:"bubble_ratio"`
	FormulaPeak     *float64 `json:"formula_peak_activations"`
	PeakActivations float64  `json:"peak_activations"`
	PeakMemoryBytes float64  `json:"peak_memory_bytes,omitempty"`
	// OverMemory marks a family whose busiest rank exceeds the GPU's memory.
	OverMemory bool   `json:"over_memory,omitempty"`
	Note       string `json:"note,omitempty"`
	// failed marks a row that could not be timed because of its input
	// (the command then exits 2 after printing the table).
	failed bool
}

type CompareReport struct {
	Ranks        int          `json:"ranks"`
	Microbatches int          `json:"microbatches"`
	Cost         string       `json:"cost_model"`
	Families     []CompareRow `json:"kinds"`
}

type CompareFamily struct {
	name           string
	chunks         int
	maxActivations int     // zb-auto's limit
	wgradMemory    float64 // zb-auto's M_W / M_B (--wgrad-memory)
}

// CompareRequest is one "pipelab compare": the families to compare (as
// --kind lists them, zb-auto with its limits) on P ranks and M
// microbatches, and their costs (the cost flags of simulate).
type CompareRequest struct {
	Ranks, Microbatches int
	Families            []CompareFamily
	costs               *CostFlags
}

// DecodeCompare decodes compare's flags into its request, with --format.
// A flag error's usage goes to stderr.
func DecodeCompare(args []string, stderr io.Writer) (CompareRequest, string, error) {
	fs := NewFlags("compare", "--ranks P --microbatches M [--kind LIST] [cost flags] [--format text|json]", compareDescription, stderr)
	var ranks, microbatches int
	var kinds string
	var maxActivations int
	var wgradMemory float64
	var costs CostFlags
	var output OutputFlag
	fs.IntVar(&ranks, "ranks", 0, "pipeline ranks (devices) P")
	fs.IntVar(&microbatches, "microbatches", 0, "microbatches M of one iteration")
	fs.StringVar(&kinds, "kind", defaultCompareKinds, "schedule families to compare: a comma-separated family[:chunks] list")
	fs.IntVar(&maxActivations, "max-activations", 0, "zb-auto: microbatches of activations (M_B) a rank may hold; 0 means P")
	fs.Float64Var(&wgradMemory, "wgrad-memory", 0, WgradMemoryUsage)
	costs.Register(fs)
	output.Register(fs)
	if err := ParseFlags(fs, args); err != nil {
		return CompareRequest{}, "", err
	}
	costs.Set = SetFlags(fs)
	families, err := checkCompare(fs.Args(), ranks, microbatches, kinds, &output, &costs)
	if err == nil {
		err = withMaxActivations(families, maxActivations, costs.Set["max-activations"])
	}
	if err == nil {
		err = withWgradMemory(families, wgradMemory, &costs)
	}
	if err != nil {
		return CompareRequest{}, "", FlagProblem(fs, stderr, "compare", err)
	}
	return CompareRequest{Ranks: ranks, Microbatches: microbatches, Families: families, costs: &costs}, output.Format, nil
}

// Compare prices each family of the request at the three levels and
// ranks them. A family that could not be priced is in the report with
// why; the error then says which (bad input), and the report is still
// whole.
func Compare(ctx context.Context, req CompareRequest) (CompareReport, error) {
	ranks, microbatches, families := req.Ranks, req.Microbatches, req.Families
	if req.costs == nil {
		return CompareReport{}, badInputf("compare: no costs (DecodeCompare builds the request)")
	}
	for _, fam := range families {
		sh := costspec.ComparisonShape(ranks, microbatches, fam.chunks)
		if err := GuardShape(fam.name, sh, CompareCellBytes); err != nil {
			return CompareReport{}, err
		}
	}
	rep := CompareReport{Ranks: ranks, Microbatches: microbatches}
	var failed error
	for _, fam := range families {
		if err := ctx.Err(); err != nil {
			return CompareReport{}, err
		}
		row, cost := compareOne(ctx, fam, ranks, microbatches, req.costs)
		if cost != "" {
			rep.Cost = cost
		}
		if row.failed && failed == nil {
			failed = fault.Bad(fmt.Errorf("%s: %s", fam.name, row.Note))
		}
		rep.Families = append(rep.Families, row)
	}
	if err := ctx.Err(); err != nil {
		return CompareReport{}, err // the last family's simulation was cut short
	}
	if rep.Cost == "" && failed == nil {
		rep.Cost = "none (no family could be built)"
		failed = fault.Bad(fmt.Errorf("no family of --kind could be built for P = %d ranks and M = %d microbatches; each row says why", ranks, microbatches))
	}
	rankRows(rep.Families)
	return rep, failed
}

// checkCompare names the flag that is wrong and parses --kind.
func checkCompare(rest []string, ranks, microbatches int, kinds string, output *OutputFlag, costs *CostFlags) ([]CompareFamily, error) {
	if err := FirstError(NoArguments(rest), Required("ranks", ranks, costs.Set), Required("microbatches", microbatches, costs.Set), output.Check()); err != nil {
		return nil, err
	}
	if costs.Kind() == "lockstep" {
		return nil, fmt.Errorf("--cost-model lockstep is one of the levels compare shows already: use unit, explicit or GPU costs")
	}
	if err := costs.Check(); err != nil {
		return nil, err
	}
	items, err := ParseKinds(kinds)
	if err != nil {
		return nil, err
	}
	var out []CompareFamily
	for _, k := range items {
		out = append(out, CompareFamily{name: k.Name, chunks: k.Chunks})
	}
	return out, nil
}

// compareOne evaluates one family at the three levels (sim.Compare, as the
// schedules measure does); a family that cannot be built or timed gets a
// note instead of values.
func compareOne(ctx context.Context, fam CompareFamily, ranks, microbatches int, costs *CostFlags) (CompareRow, string) {
	row := CompareRow{Kind: fam.name}
	sh := costspec.ComparisonShape(ranks, microbatches, fam.chunks)
	t, err := fam.generate(sh, costs)
	if err != nil {
		row.Note = err.Error()
		return row, ""
	}
	row.Chunks = cost.ChunksPerRank(t)
	pr, err := costs.PricingFor(t)
	if err != nil {
		// The lockstep level needs no costs: it is kept (and ranked).
		if _, steps, lockErr := sim.TorchLockstep(t, false); lockErr == nil {
			row.Lockstep = &steps
		}
		row.Note = err.Error()
		return row, ""
	}
	// Any lockstep failure, pipeline.ErrMalformed or not, is "n/a" here.
	lv, err := sim.CompareContext(ctx, fam.name, t, sh, pr.Cost, pr.Share, sim.LockstepSteps)
	if lv.LockstepErr == nil {
		row.Lockstep = &lv.Steps
	}
	if lv.Formula != nil {
		row.Formula, row.FormulaPeak, row.FormulaSource = &lv.Formula.Makespan, &lv.FormulaPeak, lv.Formula.Source
	}
	if err != nil {
		row.Note, row.failed = err.Error(), true
		return row, pr.Name
	}
	tl := lv.Timeline
	makespan := sim.Makespan(tl)
	if math.IsNaN(makespan) || math.IsInf(makespan, 0) {
		row.Note, row.failed = fmt.Sprintf("the costs give a makespan of %g", makespan), true
		return row, pr.Name
	}
	row.Makespan, row.BubbleRatio = &makespan, sim.BubbleRatio(tl)
	row.PeakActivations = slices.Max(PeakHeld(tl, pr.Memory)) * cost.StageShare(t)
	if pr.Memory != nil {
		row.PeakMemoryBytes = slices.Max(sim.PeakMemory(tl, pr.Memory))
		row.OverMemory = pr.MemoryLimit > 0 && row.PeakMemoryBytes > pr.MemoryLimit
	}
	return row, pr.Name
}

// rankRows ranks the families at each level, fastest first, by
// sim.Ranks (the schedules measure's rule); families without a value
// get none.
func rankRows(rows []CompareRow) {
	rank := func(value func(CompareRow) *float64, set func(*CompareRow, int)) {
		values := make([]float64, len(rows))
		for i, r := range rows {
			values[i] = math.NaN()
			if v := value(r); v != nil {
				values[i] = *v
			}
		}
		for i, k := range sim.Ranks(values) {
			set(&rows[i], k)
		}
	}
	rank(func(r CompareRow) *float64 { return r.Formula }, func(r *CompareRow, k int) { r.FormulaRank = k })
	rank(func(r CompareRow) *float64 {
		if r.Lockstep == nil {
			return nil
		}
		v := float64(*r.Lockstep)
		return &v
	}, func(r *CompareRow, k int) { r.LockstepRank = k })
	rank(func(r CompareRow) *float64 { return r.Makespan }, func(r *CompareRow, k int) { r.MakespanRank = k })
}

// WriteText prints the report as "pipelab compare" does without
// --format json.
func (rep CompareReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "P = %d ranks, M = %d microbatches; cost: %s\n\n", rep.Ranks, rep.Microbatches, rep.Cost)
	memory := false
	for _, r := range rep.Families {
		memory = memory || r.PeakMemoryBytes > 0
	}
	fmt.Fprintf(&b, "%-24s %13s %12s %13s %9s %16s", "kind", "formula", "lockstep", "simulated", "bubble", "peak act (M_B)")
	if memory {
		fmt.Fprintf(&b, "  %s", "peak memory")
	}
	b.WriteString("\n")
	for _, r := range rep.Families {
		if r.Makespan == nil {
			fmt.Fprintf(&b, "%-24s %s\n", r.Kind, r.Note)
			continue
		}
		name := r.Kind
		if r.Chunks > 1 {
			name += fmt.Sprintf(" (V=%d)", r.Chunks)
		}
		formula, peak := "n/a", fmt.Sprintf("%.4g", r.PeakActivations)
		if r.Formula != nil {
			formula = fmt.Sprintf("%.4g #%d", *r.Formula, r.FormulaRank)
			peak = fmt.Sprintf("%.4g (%.4g)", r.PeakActivations, *r.FormulaPeak)
		}
		lockstep := "n/a"
		if r.Lockstep != nil {
			lockstep = fmt.Sprintf("%d #%d", *r.Lockstep, r.LockstepRank)
		}
		fmt.Fprintf(&b, "%-24s %13s %12s %13s %9.4f %16s", name, formula, lockstep,
			fmt.Sprintf("%.4g #%d", *r.Makespan, r.MakespanRank), r.BubbleRatio, peak)
		if r.PeakMemoryBytes > 0 {
			fmt.Fprintf(&b, "  %s", GB(r.PeakMemoryBytes))
		}
		if r.OverMemory {
			b.WriteString("  over the GPU's memory")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n#k: rank among the families at that level; peak act: simulated (formula) in M_B, one rank share's activation\n")
	_, err := io.WriteString(w, b.String())
	return err
}
