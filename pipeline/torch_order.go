package pipeline

// TorchOrder returns t with its rows laid out as PyTorch's pipeline_order
// lays out the same family (torch.distributed.pipelining's schedule
// classes, whose _dump_csv writes it): the same actions in the same order
// on every rank, with the empty cells where PyTorch puts None. Generated
// rows place bubbles where the idealised unit-time grid has them; PyTorch
// pads by fixed counts instead (GPipe, 1F1B, interleaved 1F1B, looped BFS,
// ZB-V) or not at all (DualPipeV). Its interleaved zero-bubble rows are the
// generator's own. Only the bubbles move, so lowering the result without
// bubbles, simulating it or stepping it gives what t gives.
//
// A table of another family, read from a file, or of a shape PyTorch does
// not build (1F1B with fewer microbatches than ranks) is returned as it is.
// docs/csv.md lists, family by family, where PyTorch's bubbles fall and
// where pipelab keeps a different order (1F1B's last rank).
func TorchOrder(t *Table) *Table {
	f, ok := families[t.Family]
	if !ok || f.torchOrder == nil {
		return t
	}
	rows, ok := f.torchOrder(t)
	if !ok {
		return t
	}
	return withRows(t, rows)
}

// torchRows lays out every rank's actions, bubbles dropped, with pad(r, n)
// bubbles before the n-th action of rank r (n counting from 0).
func torchRows(t *Table, pad func(r, n int) int) [][]Action {
	rows := make([][]Action, t.Ranks())
	for r, row := range t.Rows {
		var out []Action
		n := 0
		for _, a := range row {
			if a.IsBubble() {
				continue
			}
			out = append(out, make([]Action, pad(r, n))...)
			out = append(out, a)
			n++
		}
		rows[r] = out
	}
	return rows
}
