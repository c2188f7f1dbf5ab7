package pipeline

import "fmt"

func init() {
	registerFamily(Family{
		Name:     "dualpipe",
		Summary:  "DualPipe (DeepSeek-V3 arXiv 2412.19437 §3.2): two pipelines in opposite directions on replicated stages, F&B overlapped; P even, M even, M >= 2P",
		Generate: dualPipe,
	})
}

// dualPipe builds DeepSeek's full DualPipe (DeepSeek-V3 technical report,
// arXiv 2412.19437 §3.2; deepseek-ai/DualPipe dualpipe.py): the model's P
// stages are held twice, as Chimera holds them, one pipeline running down
// (model stage s on rank s, table stage s) and one up (model stage s on
// rank P-1-s, table stage P+s), so the table has 2P stages and two Routes.
// Microbatches 0 to M/2-1 take the down pipeline, M/2 to M-1 the up one:
// dualpipe.py feeds half of its chunks in at the first rank and half at
// the last.
//
// A rank's chunk 0 is its stage of the pipeline that starts at the nearer
// end (the down pipeline on ranks 0 to P/2-1, the up pipeline on the
// others), chunk 1 its stage of the other. With h = min(r, P-1-r), the
// rank's distance from the nearer end, the rank runs the eight phases of
// DualPipeV (dualPipeV) for P/2 ranks, M/2 microbatches per chunk and rank
// h: dualpipe.py's step loop is dualpipev.py's with num_half_ranks,
// half_num_chunks and half_rank in place of the rank count, chunk count and
// rank. The two middle ranks (h = P/2-1) run their first steady-state pair
// apart, as DualPipeV's last rank does.
//
// dualpipe.py asserts an even rank count and an even chunk count of at
// least twice the ranks: P even, M even, M >= 2P.
func dualPipe(sh Shape) (*Table, error) {
	if err := oneStagePerRank(sh); err != nil {
		return nil, err
	}
	p, m := sh.Ranks, sh.Microbatches
	switch {
	case p%2 != 0:
		return nil, fmt.Errorf("the two pipelines need an even number of ranks: got P = %d", p)
	case m%2 != 0 || m < 2*p:
		return nil, fmt.Errorf("an even number of microbatches, at least twice the ranks, is needed (M even, M >= 2P = %d), got %d", 2*p, m)
	}
	t := twoPipelines(p, m)
	for mb := m / 2; mb < m; mb++ {
		t.MicrobatchRoute[mb] = 1
	}
	orders := make([][]Action, p)
	for r := range orders {
		orders[r] = dualPipeOrder(p, m, r)
	}
	return placeOverlapped(t, orders)
}

// dualPipeOrder is rank r's order of compute actions (see dualPipe).
func dualPipeOrder(p, m, r int) []Action {
	down := dpvChunk{stage: r}
	up := dpvChunk{stage: p + (p - 1 - r), first: m / 2}
	chunks := [2]dpvChunk{down, up}
	if r >= p/2 {
		chunks = [2]dpvChunk{up, down}
	}
	d := dpvRank{
		stage: [2]int{chunks[0].stage, chunks[1].stage},
		nextF: [2]int{chunks[0].first, chunks[1].first},
		nextB: [2]int{chunks[0].first, chunks[1].first},
	}
	return d.phases(p/2, m/2, min(r, p-1-r))
}

// dpvChunk is one of a DualPipe rank's two stages and the first
// microbatch of the pipeline it belongs to.
type dpvChunk struct{ stage, first int }
