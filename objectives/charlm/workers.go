package charlm

import "sync"

// meanLoss returns the mean of loss(w, i) over i < n, each term computed
// on a model w of its own (m or one of its workers, Config.Workers in
// all), batch i on worker i mod Workers. The terms are added in the order
// of i whatever the count, as the one-goroutine loop adds them, so the
// mean is the same bits for every worker count. Outside meanLoss the
// workers' count spreads the rows of each product instead (gemmNN).
func (m *Model) meanLoss(n int, loss func(w *Model, i int) float64) float64 {
	workers := min(m.cfg.workers(), n)
	if workers <= 1 {
		var sum float64
		for i := range n {
			sum += loss(m, i)
		}
		return sum / float64(n)
	}
	for len(m.workers) < workers-1 {
		w := m.Clone()
		w.ws.linear.rows = nil
		m.workers = append(m.workers, w)
	}
	// The batches take the cores: each model's products stay on its
	// own goroutine.
	rows := m.ws.linear.rows
	m.ws.linear.rows = nil
	defer func() { m.ws.linear.rows = rows }()
	terms := make([]float64, n)
	var wg sync.WaitGroup
	for k := range workers {
		w := m
		if k > 0 {
			w = m.workers[k-1]
		}
		wg.Go(func() {
			for i := k; i < n; i += workers {
				terms[i] = loss(w, i)
			}
		})
	}
	wg.Wait()
	var sum float64
	for _, t := range terms {
		sum += t
	}
	return sum / float64(n)
}
