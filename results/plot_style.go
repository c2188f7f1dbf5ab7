package results

import (
	"hash/fnv"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// methodColors is the one palette of the convergence figures: a method is
// drawn in the same hue in every loss, final-loss and time-to-target plot,
// so a reader who learnt PipeDream's blue in one figure finds it in the
// next. The hues are the Okabe–Ito colours, told apart with colour-blind
// vision, and a few darker ones.
var methodColors = map[string]color.RGBA{
	"pipedream":  {0x00, 0x72, 0xb2, 0xff}, // blue
	"pd-nostash": {0x56, 0xb4, 0xe9, 0xff}, // sky blue
	"2bw":        {0xe6, 0x9f, 0x00, 0xff}, // orange
	"pipemare":   {0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	"predict":    {0x8c, 0x56, 0x4b, 0xff}, // brown
	"dc":         {0x7f, 0x3c, 0x8d, 0xff}, // purple
	"dc-a":       {0xc0, 0x7a, 0xd0, 0xff}, // light purple
	"rpd":        {0xd5, 0x5e, 0x00, 0xff}, // vermillion
	"localsgd":   {0x00, 0x9e, 0x73, 0xff}, // bluish green, shaded by H
	"sync":       {0x33, 0x33, 0x33, 0xff}, // near black
}

// MethodColor returns the colour every figure draws method in. A method
// outside the palette gets one of gonum's default colours chosen by a hash
// of its name, so it too keeps its colour from figure to figure.
func MethodColor(method string) color.Color {
	if c, ok := methodColors[method]; ok {
		return c
	}
	if name, _, ok := strings.Cut(method, " "); ok {
		return MethodColor(name) // a method with its settings ("dc dc_lambda=2")
	}
	h := fnv.New32a()
	h.Write([]byte(method))
	return plotutil.Color(int(h.Sum32() % uint32(len(plotutil.DefaultColors))))
}

// lineStyle is how one line of a convergence figure is drawn.
type lineStyle struct {
	Color  color.Color
	Dashes []vg.Length
	Shape  int // plotutil.Shape index, for the points of a final-loss line
}

// lineKey identifies a line for styling: its method, LocalSGD's H (0
// elsewhere), and its rank among the lines of its method in the figure.
type lineKey struct {
	method string
	h      int32
	rank   int
}

// styleOf styles a line: the method's colour, LocalSGD's shaded by H the
// same way in every figure (H = 1 darkest, H ≥ 32 lightest), other methods
// with two lines in their hue told apart by dash, and with more lines
// shaded and dashed by their rank among them, so lines of one method share
// a hue and are still told apart. Points
// take the method's shape.
func styleOf(k lineKey, linesOfMethod int) lineStyle {
	base := MethodColor(k.method)
	s := lineStyle{Dashes: plotutil.Dashes(k.rank), Shape: shapeOf(k.method)}
	switch {
	case k.method == "localsgd" && k.h > 0:
		t := math.Min(1, math.Log2(float64(k.h))/5)
		s.Color = shade(base, -0.45+0.9*t)
	case linesOfMethod == 2:
		// Two lines (two optimizers, two stage counts): the method's own
		// hue, told apart by dash alone, so no shade comes near another
		// method's hue (a light PipeDream blue is PD-nostash's sky blue).
		s.Color = base
	case linesOfMethod > 2:
		t := float64(k.rank)/float64(linesOfMethod-1) - 0.5 // in [-0.5, 0.5]
		s.Color = shade(base, 0.8*t)
	default:
		s.Color = base
	}
	return s
}

// shapeOf gives each method of the palette its own point shape.
func shapeOf(method string) int {
	order := []string{"pipedream", "rpd", "localsgd", "sync", "pd-nostash", "2bw", "pipemare", "predict", "dc", "dc-a"}
	for i, m := range order {
		if m == method {
			return i
		}
	}
	h := fnv.New32a()
	h.Write([]byte(method))
	return int(h.Sum32() % 7)
}

// shade mixes c with black (t < 0) or white (t > 0) by |t| ∈ [0, 1].
func shade(c color.Color, t float64) color.Color {
	r, g, b, _ := c.RGBA()
	target := 0.0
	if t > 0 {
		target = 255
	}
	t = math.Min(1, math.Abs(t))
	mix := func(v uint32) uint8 {
		return uint8(math.Round(float64(v>>8)*(1-t) + target*t))
	}
	return color.RGBA{mix(r), mix(g), mix(b), 0xff}
}

// lineKeys ranks lines within their method: keys[i] is line i's key, and
// count[m] the number of lines of method m. methods and hs give each
// line's method and H, in the order the lines are drawn.
func lineKeys(methods []string, hs []int32) (keys []lineKey, count map[string]int) {
	count = map[string]int{}
	keys = make([]lineKey, len(methods))
	for i, m := range methods {
		keys[i] = lineKey{method: m, h: hs[i], rank: count[m]}
		count[m]++
	}
	return keys, count
}
