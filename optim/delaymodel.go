package optim

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// Iteration is what a delay model decides for one RPD iteration: the
// stage whose block is updated, the microbatch whose batch is used (batch
// Microbatch mod Batches), and one delay per stage.
type Iteration struct {
	Stage      int
	Microbatch int
	Delays     []int
}

// DelayModel gives RPD its iterations (REFERENCE.md §1.4).
type DelayModel interface {
	// Draw fills it (whose Delays has one entry per stage) with iteration
	// k's choices, drawing from rng if the model is random.
	Draw(k int, it *Iteration, rng *rand.Rand) error
	// Bound is δ, the largest delay the model gives; RPD keeps δ+1
	// versions of each block.
	Bound() int
	// Len is the model's default number of iterations K.
	Len() int
}

// DefaultDelta returns ⌊S² - S/2⌋, PipeDream's steady-state delay bound
// and the paper's δ for RPD (REFERENCE.md §1.3, §1.4).
func DefaultDelta(stages int) int { return stages*stages - (stages+1)/2 }

// Uniform is the paper's delay model: the stage is drawn uniformly, the
// batch uniformly from PipeDream's cyclic list of Microbatches microbatches,
// and each stage's delay independently from U{0, ..., min(δ, k)}, all from
// the run's sampling stream in that order.
type Uniform struct {
	Stages       int
	Delta        int // δ ≥ 0
	Microbatches int // N: K defaults to N·S
}

// Draw draws iteration k.
func (u Uniform) Draw(k int, it *Iteration, rng *rand.Rand) error {
	if u.Stages < 1 || u.Microbatches < 1 || u.Delta < 0 {
		return fmt.Errorf("%w: uniform delays need S ≥ 1, N ≥ 1 and δ ≥ 0 (got %d, %d, %d)", ErrSettings, u.Stages, u.Microbatches, u.Delta)
	}
	it.Stage = rng.IntN(u.Stages)
	it.Microbatch = rng.IntN(u.Microbatches)
	top := min(u.Delta, k) + 1
	for j := range it.Delays {
		it.Delays[j] = rng.IntN(top)
	}
	return nil
}

// Bound returns δ.
func (u Uniform) Bound() int { return u.Delta }

// Len returns N·S.
func (u Uniform) Len() int { return u.Microbatches * u.Stages }

// Draw returns row k of the table: with PipeDream's exact delays and op
// order this makes RPD replay PipeDream exactly (REFERENCE.md §1.4).
func (d *DelayTable) Draw(k int, it *Iteration, _ *rand.Rand) error {
	if k >= len(d.Rows) {
		return fmt.Errorf("%w: iteration %d is past the delay table's %d rows", ErrSettings, k, len(d.Rows))
	}
	row := d.Rows[k]
	if len(row.Delays) != len(it.Delays) {
		return fmt.Errorf("%w: delay row %d has %d delays for %d stages", ErrSettings, k, len(row.Delays), len(it.Delays))
	}
	for j, v := range row.Delays {
		if v < 0 || v > k {
			return fmt.Errorf("%w: delay row %d: stage %d delay %d is outside 0..%d", ErrSettings, k, j, v, k)
		}
	}
	it.Stage, it.Microbatch = row.Stage, row.Microbatch
	copy(it.Delays, row.Delays)
	return nil
}

// Len returns the number of rows.
func (d *DelayTable) Len() int { return len(d.Rows) }

// LoadDelayTrace reads a delay trace file (see ReadDelayTrace).
func LoadDelayTrace(path string) (*DelayTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("optim: %w", err)
	}
	defer f.Close()
	return ReadDelayTrace(f, path)
}

// ReadDelayTrace reads a delay trace: one block update per line,
// "stage,batch,d_0,...,d_{S-1}" as non-negative integers, every line the
// same width, an optional header line starting with "stage". Iteration k
// of RPD replays line k. Errors name the file, the line and the column.
func ReadDelayTrace(r io.Reader, name string) (*DelayTable, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<24)
	dt := &DelayTable{}
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || (len(dt.Rows) == 0 && strings.HasPrefix(text, "stage")) {
			continue
		}
		cells := strings.Split(text, ",")
		if dt.Stages == 0 {
			if len(cells) < 3 {
				return nil, fmt.Errorf("optim: %s line %d: %d columns, want stage, batch and one delay per stage", name, line, len(cells))
			}
			dt.Stages = len(cells) - 2
		}
		if len(cells) != dt.Stages+2 {
			return nil, fmt.Errorf("optim: %s line %d: %d columns, want %d", name, line, len(cells), dt.Stages+2)
		}
		vals := make([]int, len(cells))
		for c, cell := range cells {
			v, err := strconv.Atoi(strings.TrimSpace(cell))
			if err != nil || v < 0 {
				return nil, fmt.Errorf("optim: %s line %d column %d: %q is not a non-negative integer", name, line, c+1, strings.TrimSpace(cell))
			}
			vals[c] = v
		}
		if vals[0] >= dt.Stages {
			return nil, fmt.Errorf("optim: %s line %d column 1: stage %d of %d", name, line, vals[0], dt.Stages)
		}
		k := len(dt.Rows)
		for j, v := range vals[2:] {
			if v > k {
				return nil, fmt.Errorf("optim: %s line %d column %d: delay %d exceeds the %d updates before this one", name, line, j+3, v, k)
			}
		}
		dt.Rows = append(dt.Rows, DelayRow{Stage: vals[0], Microbatch: vals[1], Delays: vals[2:]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("optim: reading %s: %w", name, err)
	}
	if len(dt.Rows) == 0 {
		return nil, fmt.Errorf("optim: %s holds no delay rows", name)
	}
	return dt, nil
}
