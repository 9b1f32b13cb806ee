package plot

import (
	"errors"
	"fmt"
	"image/png"
	"io"
	"math"
)

// Chart is a line chart: series of points on a frame with ticked axes, a
// title, axis labels and a legend.
type Chart struct {
	Title  string // drawn centred above the plot; empty draws none
	XLabel string // drawn centred under the X tick labels
	YLabel string // drawn turned a quarter left, reading upwards, left of the Y tick labels

	// Width and Height are the size of the image in pixels, each at most
	// 8192; zero means 900 wide and 540 high.
	Width, Height int

	// Series are drawn in order, each in its own colour, at most 6.
	Series []Series
}

// Series is one line of a [Chart], named in the legend.
type Series struct {
	Name string

	// Points are joined in order. X must not decrease from one point to
	// the next; X and Y must be finite and within ±1e300. A series of one
	// point is drawn as a square dot.
	Points []Point

	// Step draws the series as a step function: the value of a point holds
	// until the X of the next, where the line rises or falls to it. It
	// suits cumulative counts.
	Step bool
}

// Point is a point of a [Series], in data units.
type Point struct{ X, Y float64 }

// ErrInvalidPoint is wrapped by the error of a chart with a point that is
// not finite, lies beyond ±1e300, or has an X less than the X before it.
var ErrInvalidPoint = errors.New("invalid point")

// ErrInvalidChart is wrapped by the error of a chart with a negative or
// too large size, a size too small to hold a plot, or more than 6 series.
var ErrInvalidChart = errors.New("invalid chart")

// PNG writes c as a PNG image to w. It returns an error wrapping
// [ErrInvalidPoint] or [ErrInvalidChart] that names the offending input, and
// writes nothing, if c cannot be drawn.
func (c Chart) PNG(w io.Writer) error {
	img, err := c.draw()
	if err != nil {
		return err
	}
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("plot: writing PNG: %w", err)
	}
	return nil
}

// check returns the first reason c cannot be drawn, or nil.
func (c Chart) check() error {
	if c.Width < 0 || c.Height < 0 || c.Width > maxSide || c.Height > maxSide {
		return fmt.Errorf("plot: size %dx%d is not within 0x0 to %dx%d: %w", c.Width, c.Height, maxSide, maxSide, ErrInvalidChart)
	}
	if len(c.Series) > len(palette) {
		return fmt.Errorf("plot: %d series, more than the %d colours: %w", len(c.Series), len(palette), ErrInvalidChart)
	}
	for _, s := range c.Series {
		for i, p := range s.Points {
			name, v := "X", p.X
			if drawable(p.X) {
				name, v = "Y", p.Y
			}
			switch {
			case !drawable(v):
				return fmt.Errorf("plot: series %q point %d: %s %g is not a finite number within ±1e300: %w", s.Name, i, name, v, ErrInvalidPoint)
			case i > 0 && p.X < s.Points[i-1].X:
				return fmt.Errorf("plot: series %q point %d: X %g is before the previous X %g: %w", s.Name, i, p.X, s.Points[i-1].X, ErrInvalidPoint)
			}
		}
	}
	return nil
}

// drawable reports whether an axis can hold v: false for NaN, ±Inf and
// beyond ±1e300, so that spans and ticks stay finite.
func drawable(v float64) bool { return math.Abs(v) <= 1e300 }
