package charlm

import "sync"

// meanLoss returns the mean loss at x over the windows picked of text
// (training batches or held-out windows, all in range), each window's
// loss computed on a model of its own (m or one of its workers,
// Config.Workers in all), window i on worker i mod Workers. The losses
// are added in the order of picked whatever the count, as the
// one-goroutine loop adds them, so the mean is the same bits for every
// worker count. Outside meanLoss the workers' count spreads the rows of
// each product instead (gemmNN).
func (m *Model) meanLoss(x []float64, text []int32, picked []int) float64 {
	n := len(picked)
	workers := min(m.cfg.workers(), n)
	if workers <= 1 {
		var sum float64
		for _, j := range picked {
			inputs, targets := m.window(text, j)
			sum += m.forward(x, inputs, targets)
		}
		return sum / float64(n)
	}
	for len(m.workers) < workers-1 {
		w := m.Clone()
		w.ws.linear.rows = nil
		m.workers = append(m.workers, w)
	}
	// The windows take the cores: each model's products stay on its own
	// goroutine.
	rows := m.ws.linear.rows
	m.ws.linear.rows = nil
	defer func() { m.ws.linear.rows = rows }()
	losses := make([]float64, n)
	var wg sync.WaitGroup
	for k := range workers {
		w := m
		if k > 0 {
			w = m.workers[k-1]
		}
		wg.Go(func() {
			for i := k; i < n; i += workers {
				inputs, targets := w.window(text, picked[i])
				losses[i] = w.forward(x, inputs, targets)
			}
		})
	}
	wg.Wait()
	var sum float64
	for _, l := range losses {
		sum += l
	}
	return sum / float64(n)
}
