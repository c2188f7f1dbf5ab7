package results

import (
	"image/color"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// keyEntry is one swatch of a horizontal key: a filled square and its
// name.
type keyEntry struct {
	fill color.Color
	name string
}

// keySwatch is the side of a key's squares.
const keySwatch = 9 * vg.Inch / 72

// drawKey draws entries left to right in one row starting at x, centred
// on y, and then the trailer text, if any: the key of a figure whose
// colours are not lines (bars, Gantt boxes), set outside the data so that
// it covers none of them.
func drawKey(c draw.Canvas, x, y vg.Length, entries []keyEntry, trailer string, sty text.Style) {
	sty.XAlign, sty.YAlign = text.XLeft, text.YCenter
	side := keySwatch
	for _, e := range entries {
		box := []vg.Point{{X: x, Y: y - side/2}, {X: x + side, Y: y - side/2}, {X: x + side, Y: y + side/2}, {X: x, Y: y + side/2}}
		c.FillPolygon(e.fill, box)
		c.FillText(sty, vg.Point{X: x + side + vg.Points(4), Y: y}, e.name)
		x += side + vg.Points(12) + sty.Width(e.name)
	}
	if trailer != "" {
		c.FillText(sty, vg.Point{X: x + vg.Points(8), Y: y}, trailer)
	}
}

// keyWidth is the width drawKey takes for entries and trailer.
func keyWidth(entries []keyEntry, trailer string, sty text.Style) vg.Length {
	side := keySwatch
	var w vg.Length
	for _, e := range entries {
		w += side + vg.Points(12) + sty.Width(e.name)
	}
	if trailer != "" {
		w += vg.Points(8) + sty.Width(trailer)
	}
	return w
}
