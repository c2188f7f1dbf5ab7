package charlm

import "math"

// softmaxCrossEntropy returns the mean over the n rows of logits
// (n×vocab) of -log softmax(row)[target]. If dlogits is not nil it is set
// to the gradient of that mean: (softmax(row) - onehot(target))/n.
func softmaxCrossEntropy(dlogits, logits []float64, targets []int32, n, vocab int) float64 {
	var total float64
	inv := 1 / float64(n)
	for i := 0; i < n; i++ {
		row := logits[i*vocab : i*vocab+vocab]
		maxLogit := rowMax(row)
		var sum float64
		var shifted [64]float64
		for start := 0; start < vocab; start += len(shifted) {
			part := row[start:min(start+len(shifted), vocab)]
			e := shifted[:len(part)]
			for j, v := range part {
				e[j] = v - maxLogit
			}
			expInto(e, e)
			for _, v := range e {
				sum += v
			}
		}
		logSum := maxLogit + math.Log(sum)
		target := int(targets[i])
		total += logSum - row[target]
		if dlogits == nil {
			continue
		}
		d := dlogits[i*vocab : i*vocab+vocab]
		for j, v := range row {
			d[j] = v - logSum
		}
		expInto(d, d)
		for j := range d {
			d[j] *= inv
		}
		d[target] -= inv
	}
	return total * inv
}

// rowMax is the largest value of row as the builtin max finds it, by one
// comparison per value (the builtin's handling of zeros and NaN is several
// times dearer): a largest value of zero is +0 if row has a +0, as
// max(-0, +0) is; a NaN, which the comparisons skip, makes every output of
// softmaxCrossEntropy NaN either way.
func rowMax(row []float64) float64 {
	m := math.Inf(-1)
	for _, v := range row {
		if v > m {
			m = v
		}
	}
	if m == 0 && math.Signbit(m) {
		for _, v := range row {
			if v == 0 && !math.Signbit(v) {
				return v
			}
		}
	}
	return m
}
