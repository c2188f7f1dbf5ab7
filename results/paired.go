package results

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// MinSeeds is the fewest seeds a comparison needs before it is a claim.
const MinSeeds = 5

// Paired is pipelab's one significance rule, which every figure's claims
// and every comparison in the docs go through: the differences of two
// methods' results over seeds, paired by seed (common random numbers: a
// seed gives both methods the same data, start, sample order and noise
// stream), summarised by their mean, a 95 % Student t interval on it and
// the count of seeds whose difference has the mean's sign.
//
// Why t and not a bootstrap: with the 5 to 8 seeds a figure can afford, a
// percentile bootstrap resamples so few values that its interval covers
// the mean less often than it says (it is at most the range of the
// differences, and narrower than t's by about √((n−1)/n)·t/z); the t
// interval is exact for normal differences and, with the count of seeds
// that agree printed beside it, shows a skewed sample plainly.
type Paired struct {
	// N is the seeds paired; Agree the seeds whose difference has the
	// sign of Mean (a zero difference agrees with neither sign).
	N, Agree int
	// Mean is the mean difference, Low and High its 95 % t interval (NaN
	// for fewer than two seeds).
	Mean, Low, High float64
}

// PairedDifferences applies the rule to per-seed differences d.
func PairedDifferences(d []float64) Paired {
	p := Paired{N: len(d), Mean: mean(d), Low: math.NaN(), High: math.NaN()}
	for _, x := range d {
		if (x > 0 && p.Mean > 0) || (x < 0 && p.Mean < 0) {
			p.Agree++
		}
	}
	if p.N >= 2 {
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(p.N - 1)}.Quantile(0.975)
		h := t * sampleSD(d) / math.Sqrt(float64(p.N))
		p.Low, p.High = p.Mean-h, p.Mean+h
	}
	return p
}

// Holds reports whether the difference is a claim: at least MinSeeds
// seeds and an interval that excludes zero.
func (p Paired) Holds() bool {
	return p.N >= MinSeeds && (p.Low > 0 || p.High < 0)
}

// Sign is +1 where the difference holds and is positive, −1 where it
// holds and is negative, 0 where it does not hold.
func (p Paired) Sign() int {
	switch {
	case !p.Holds():
		return 0
	case p.Mean > 0:
		return 1
	}
	return -1
}

// String writes the rule's result as the docs quote it:
// "+0.030 [-0.018, +0.081], 4 of 5 seeds", with the digits of prec.
func (p Paired) String() string { return p.Format(3) }

// Format writes p with prec digits after the point.
func (p Paired) Format(prec int) string {
	if p.N < 2 {
		return fmt.Sprintf("%+.*f, %d of %d seeds", prec, p.Mean, p.Agree, p.N)
	}
	return fmt.Sprintf("%+.*f [%+.*f, %+.*f], %d of %d seeds", prec, p.Mean, prec, p.Low, prec, p.High, p.Agree, p.N)
}
