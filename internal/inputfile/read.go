package inputfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The caps on each kind of file, in bytes. Each is far above the largest
// real file of its kind (docs/robustness.md gives the reasoning) and far
// below what would strain memory.
const (
	// CostsCSV: one row of five numbers per stage; 65536 stages of
	// 60-byte rows are 4 MB.
	CostsCSV = 16 << 20
	// Hardware: a GPU and two links, a few hundred bytes.
	Hardware = 1 << 20
	// ModelConfig: a HuggingFace config.json is a few kB; some carry
	// label maps or tokenizer settings of a few hundred kB.
	ModelConfig = 16 << 20
	// Spec: a sweep spec is a page of YAML.
	Spec = 16 << 20
	// Trace: a profiler trace is read event by event, so only its length
	// (time) is bounded; one event is bounded by TraceEvent.
	Trace = 16 << 30
	// TraceEvent bounds one event of a trace (a few hundred bytes in
	// Kineto's traces).
	TraceEvent = 1 << 20
)

// ErrTooLarge is matched (errors.Is) by every refusal of a file over its cap.
var ErrTooLarge = errors.New("input file too large")

// TooLarge is the refusal of a file over its cap.
type TooLarge struct {
	// Name is the file, What its kind ("costs file").
	Name, What string
	// Size is the file's size when known before reading, else 0 (a stream
	// was read up to the cap).
	Size, Cap int64
}

func (e *TooLarge) Error() string {
	if e.Size > 0 {
		return fmt.Sprintf("%s: %s of %s is over the %s a %s may take (is it the right file?)", e.Name, e.What, Bytes(e.Size), Bytes(e.Cap), e.What)
	}
	return fmt.Sprintf("%s: %s goes on past the %s a %s may take (is it the right file?)", e.Name, e.What, Bytes(e.Cap), e.What)
}

// Is makes a TooLarge match ErrTooLarge.
func (e *TooLarge) Is(target error) bool { return target == ErrTooLarge }

// ReadFile reads the file at path, a what ("costs file"), refusing it
// when it is larger than limit: by its size before reading when it is a
// regular file, after limit bytes otherwise (a pipe, /dev/zero). Errors
// start with what, in the user's words.
func ReadFile(path, what string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, unwrapPath(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, &TooLarge{Name: path, What: what, Size: fi.Size(), Cap: limit}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, unwrapPath(err))
	}
	if int64(len(b)) > limit {
		return nil, &TooLarge{Name: path, What: what, Cap: limit}
	}
	return b, nil
}

// unwrapPath keeps a *PathError's path and reason but drops Go's
// operation name ("open"), which says nothing to a user.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// Limited is a reader that fails with a TooLarge once more than Cap
// bytes were read from R.
type Limited struct {
	R         io.Reader
	Name      string
	What      string
	Cap, read int64
}

func (l *Limited) Read(p []byte) (int, error) {
	if l.read > l.Cap {
		return 0, &TooLarge{Name: l.Name, What: l.What, Cap: l.Cap}
	}
	if rest := l.Cap + 1 - l.read; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := l.R.Read(p)
	l.read += int64(n)
	if l.read > l.Cap {
		return n, &TooLarge{Name: l.Name, What: l.What, Cap: l.Cap}
	}
	return n, err
}

// QuoteBytes is how many bytes of a value Quote shows.
const QuoteBytes = 40

// Quote returns s as a Go-quoted string ("...", control characters and
// invalid UTF-8 escaped), cut to its first QuoteBytes bytes (on a rune
// boundary) and marked "..." with its length when longer.
func Quote(s string) string {
	if len(s) <= QuoteBytes {
		return strconv.Quote(s)
	}
	cut := QuoteBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%s)", strconv.Quote(s[:cut]), Bytes(int64(len(s))))
}

// Bytes formats a size in binary units, as the caps are set.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Name returns s as it is when it is short and printable (a key, a file
// name), else Quote(s): a NUL or a control character never reaches a
// terminal raw.
func Name(s string) string {
	if len(s) <= QuoteBytes && utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return s
	}
	return Quote(s)
}
