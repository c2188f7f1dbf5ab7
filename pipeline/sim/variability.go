package sim

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
)

// Variability perturbs the costs of a simulation the way a real cluster
// does: every compute action takes a random multiple of its cost, some ranks
// are slower than others, and transfers jitter. The zero Variability changes
// nothing, and a simulation without variability is exact.
//
// Draws are made per action in table order (rank by rank, along each row)
// and per transfer in (direction, stage, microbatch) order, each from its own
// named stream seeded from Seed, so two policies simulated with the same
// seed see the same durations (common random numbers).
type Variability struct {
	// Seed seeds every random stream of the run.
	Seed uint64
	// Sigma is the σ of the log-normal factor, of mean 1, that multiplies
	// the duration of every compute action: exp(σZ - σ²/2), Z ~ N(0, 1).
	Sigma float64
	// CommSigma is the same for the duration of every transfer.
	CommSigma float64
	// Stragglers maps a rank to a factor (> 0) that multiplies the duration
	// of every compute action on it: 1.5 is a rank 50% slower.
	Stragglers map[int]float64
}

// MaxSigma bounds Sigma and CommSigma. The factor exp(σZ - σ²/2) has mean
// 1 at any σ, but its median exp(-σ²/2) is 0.61 at σ = 1 and 0.14 at σ = 2,
// and its coefficient of variation √(exp(σ²) - 1) is 1.3 at σ = 1 and 7.3
// at σ = 2: beyond 1 the mean is carried by draws too rare for a table's
// few thousand actions to meet, so simulated actions mostly take a small
// share of their cost (at σ = 50 nearly none of it, and the makespan comes
// out 0), which no cluster's run-to-run variability resembles.
const MaxSigma = 1.0

// IsZero reports whether v leaves every duration as the cost model says.
func (v Variability) IsZero() bool {
	return v.Sigma == 0 && v.CommSigma == 0 && len(v.Stragglers) == 0
}

// validate checks v against a table of the given rank count.
func (v Variability) validate(ranks int) error {
	if !(v.Sigma >= 0 && v.Sigma <= MaxSigma) {
		return fmt.Errorf("sim: variability: compute noise sigma %v must be in [0, %g]", v.Sigma, MaxSigma)
	}
	if !(v.CommSigma >= 0 && v.CommSigma <= MaxSigma) {
		return fmt.Errorf("sim: variability: communication jitter sigma %v must be in [0, %g]", v.CommSigma, MaxSigma)
	}
	for _, r := range v.stragglerRanks() {
		f := v.Stragglers[r]
		if r < 0 || r >= ranks {
			return fmt.Errorf("sim: variability: straggler rank %d is not among the table's %d ranks", r, ranks)
		}
		if !(f > 0) || math.IsInf(f, 0) {
			return fmt.Errorf("sim: variability: straggler rank %d has factor %v; a slowdown factor must be finite and above 0", r, f)
		}
	}
	return nil
}

// stragglerRanks lists the straggler ranks in increasing order, so that
// errors and draws do not depend on map order.
func (v Variability) stragglerRanks() []int {
	ranks := make([]int, 0, len(v.Stragglers))
	for r := range v.Stragglers {
		ranks = append(ranks, r)
	}
	sort.Ints(ranks)
	return ranks
}

// logNormal draws factors exp(σZ - σ²/2), whose mean is 1, from one stream.
// With σ = 0 every factor is exactly 1 and no number is drawn.
type logNormal struct {
	sigma float64
	rng   *rand.Rand
}

// newLogNormal opens the stream named name for the given iteration of a
// run seeded with seed.
func newLogNormal(sigma float64, seed uint64, name string, iteration int) logNormal {
	return logNormal{sigma: sigma, rng: rand.New(rand.NewPCG(seed, streamID(name, iteration)))}
}

func (l logNormal) next() float64 {
	if l.sigma == 0 {
		return 1
	}
	return math.Exp(l.sigma*l.rng.NormFloat64() - l.sigma*l.sigma/2)
}

// streamID names a random stream: the FNV-1a hash of its name and the
// iteration it belongs to.
func streamID(name string, iteration int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	h.Write([]byte{'/'})
	h.Write([]byte(strconv.Itoa(iteration)))
	return h.Sum64()
}
