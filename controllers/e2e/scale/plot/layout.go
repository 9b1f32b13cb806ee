package plot

import (
	"fmt"
	"image"
	"math"
)

// Sizes of the layout, in pixels.
const (
	defaultWidth, defaultHeight = 900, 540
	maxSide                     = 8192
	pad                         = 12 // from the edge of the image
	gap                         = 8  // between a text and what it labels
	tickLen                     = 6
	minPlot                     = 40 // least width and height of the plot area
	legendInset                 = 10 // from the frame to the legend
	legendRow                   = textH + 6
	swatchW                     = 28
)

// layout is where a chart's parts go.
type layout struct {
	size image.Point
	plot image.Rectangle // the series are drawn inside; the frame just outside
	x, y axis
}

// px returns the column of data value x.
func (l layout) px(x float64) int {
	f := (x - l.x.lo) / (l.x.hi - l.x.lo)
	return l.plot.Min.X + int(math.Round(f*float64(l.plot.Dx()-2)))
}

// py returns the row of data value y.
func (l layout) py(y float64) int {
	f := (y - l.y.lo) / (l.y.hi - l.y.lo)
	return l.plot.Max.Y - 1 - int(math.Round(f*float64(l.plot.Dy()-2)))
}

func (l layout) at(p Point) image.Point { return image.Pt(l.px(p.X), l.py(p.Y)) }

// layout places the parts of c, or returns why it cannot.
func (c Chart) layout() (layout, error) {
	l := layout{size: image.Pt(c.Width, c.Height)}
	if l.size.X == 0 {
		l.size.X = defaultWidth
	}
	if l.size.Y == 0 {
		l.size.Y = defaultHeight
	}
	lo, hi := Point{math.Inf(1), math.Inf(1)}, Point{math.Inf(-1), math.Inf(-1)}
	for _, s := range c.Series {
		for _, p := range s.Points {
			lo = Point{min(lo.X, p.X), min(lo.Y, p.Y)}
			hi = Point{max(hi.X, p.X), max(hi.Y, p.Y)}
		}
	}
	if lo.X > hi.X { // no points
		lo, hi = Point{}, Point{}
	}
	l.x, l.y = newAxis(lo.X, hi.X), newAxis(lo.Y, hi.Y)

	yLabelW := 0
	for _, v := range l.y.ticks {
		yLabelW = max(yLabelW, textWidth(l.y.label(v)))
	}
	left := pad + yLabelW + gap + tickLen
	if c.YLabel != "" {
		left += textH + gap
	}
	top := pad + capH/2
	if c.Title != "" {
		top = pad + textH + 2*gap
	}
	right := pad + textWidth(l.x.label(l.x.ticks[len(l.x.ticks)-1]))/2
	bottom := tickLen + gap + textH + pad
	if c.XLabel != "" {
		bottom += textH + gap
	}
	l.plot = image.Rect(left, top, l.size.X-right, l.size.Y-bottom)
	if l.plot.Dx() < minPlot || l.plot.Dy() < minPlot {
		return l, fmt.Errorf("plot: size %dx%d leaves a plot area of %dx%d, less than %dx%d: %w",
			l.size.X, l.size.Y, l.plot.Dx(), l.plot.Dy(), minPlot, minPlot, ErrInvalidChart)
	}
	return l, nil
}
