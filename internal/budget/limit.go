package budget

import (
	"bufio"
	"fmt"
	"github.com/pipelab/pipelab/fault"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// EnvVar is the environment variable that sets the limit when
// --max-memory is not given.
const EnvVar = "PIPELAB_MAX_MEMORY"

// fallbackLimit is the default on a system whose memory cannot be read.
const fallbackLimit = 8 << 30

// ErrTooLarge marks a refusal by Check: fault.TooLarge, the one kind of
// a size refused.
var ErrTooLarge = fault.TooLarge

// flagLimit is the limit --max-memory set, 0 when none.
var flagLimit atomic.Int64

// SetLimit sets the limit from --max-memory; 0 restores the environment's
// or the default.
func SetLimit(bytes int64) { flagLimit.Store(bytes) }

// Limit returns the memory limit in bytes and what set it.
func Limit() (bytes int64, source string, err error) {
	if b := flagLimit.Load(); b > 0 {
		return b, "--max-memory", nil
	}
	if v := os.Getenv(EnvVar); v != "" {
		b, err := ParseBytes(v)
		if err != nil {
			return 0, "", fmt.Errorf("%s=%q: %w", EnvVar, v, err)
		}
		return b, EnvVar, nil
	}
	return defaultLimit(), "default", nil
}

// defaultLimit is three quarters of the memory the process may use, read
// once.
var defaultLimit = sync.OnceValue(func() int64 {
	avail := meminfoAvailable()
	if c := cgroupMax(); c > 0 && (avail == 0 || c < avail) {
		avail = c
	}
	if avail == 0 {
		return fallbackLimit
	}
	return avail / 4 * 3
})

// meminfoAvailable reads MemAvailable from /proc/meminfo, 0 when it cannot.
func meminfoAvailable() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && fields[0] == "MemAvailable:" && fields[2] == "kB" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err == nil && kb > 0 && kb < math.MaxInt64>>10 {
				return kb << 10
			}
		}
	}
	return 0
}

// cgroupMax reads the cgroup v2 memory.max of the process's cgroup, 0 when
// there is none or it is "max".
func cgroupMax() int64 {
	b, err := os.ReadFile("/sys/fs/cgroup/memory.max")
	if err != nil {
		return 0
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || v <= 0 {
		return 0
	}
	return v
}

// units are the suffixes ParseBytes takes, in both decimal and binary
// spellings: "G" and "GB" are 10^9, "GiB" is 2^30.
var units = []struct {
	suffix string
	factor float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"B", 1},
}

// ParseBytes reads a size: a positive number of bytes with an optional
// unit, "16G", "1.5GiB", "512MB", "1073741824". A number without a unit
// below 1 MiB is refused with the unit it most likely lacks ("40" is not
// 40 bytes but a forgotten "GB").
func ParseBytes(s string) (int64, error) {
	num, factor, unit := strings.TrimSpace(s), 1.0, false
	for _, u := range units {
		if rest, ok := strings.CutSuffix(num, u.suffix); ok {
			num, factor, unit = strings.TrimSpace(rest), u.factor, true
			break
		}
	}
	x, err := strconv.ParseFloat(num, 64)
	v := x * factor
	if err != nil || !(v >= 1) || v > math.MaxInt64/2 {
		return 0, fmt.Errorf("want a positive size such as 16G, 512MiB or 1073741824, got %q", s)
	}
	if !unit && v < 1<<20 {
		// No memory limit is a few bytes: the unit was left out.
		return 0, fmt.Errorf("%q without a unit is %s bytes, less than 1 MiB: give a unit, such as %sGB or %sGiB", s, num, num, num)
	}
	return int64(v), nil
}

// Format writes a byte count for people: "12 GB", "3.4 TB", "980 MB".
func Format(bytes float64) string {
	for _, u := range []struct {
		name string
		size float64
	}{{"EB", 1e18}, {"PB", 1e15}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}} {
		if bytes >= u.size {
			return decimals(bytes/u.size) + " " + u.name
		}
	}
	return decimals(bytes) + " B"
}

// decimals writes x with one decimal below 10 and none above.
func decimals(x float64) string {
	if x < 10 {
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}
