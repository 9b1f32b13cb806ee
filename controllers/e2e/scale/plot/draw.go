package plot

import (
	"image"
	"image/color"
)

// palette is the Okabe–Ito colour-blind-safe palette without its yellow,
// which is too pale on white, and its black, which the axes use.
var palette = [...]color.RGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
}

var (
	white = color.RGBA{0xFF, 0xFF, 0xFF, 0xFF}
	black = color.RGBA{0x00, 0x00, 0x00, 0xFF}
	grey  = color.RGBA{0x80, 0x80, 0x80, 0xFF} // the legend's border
	grid  = color.RGBA{0xE6, 0xE6, 0xE6, 0xFF}
)

// draw returns the image of c.
func (c Chart) draw() (*image.RGBA, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	l, err := c.layout()
	if err != nil {
		return nil, err
	}
	cv := canvas{image.NewRGBA(image.Rectangle{Max: l.size})}
	cv.fill(cv.img.Rect, white)
	drawAxes(cv, l)
	c.drawSeries(cv, l)
	c.drawLegend(cv, l)
	c.drawTitles(cv, l)
	return cv.img, nil
}

// drawAxes draws the grid, the frame, and the ticks and their labels.
func drawAxes(cv canvas, l layout) {
	for _, v := range l.x.ticks {
		x := l.px(v)
		cv.fill(image.Rect(x, l.plot.Min.Y, x+1, l.plot.Max.Y), grid)
		cv.fill(image.Rect(x, l.plot.Max.Y+1, x+1, l.plot.Max.Y+1+tickLen), black)
		s := l.x.label(v)
		cv.text(image.Pt(x-textWidth(s)/2, l.plot.Max.Y+1+tickLen+gap), s, black)
	}
	for _, v := range l.y.ticks {
		y := l.py(v)
		cv.fill(image.Rect(l.plot.Min.X, y, l.plot.Max.X, y+1), grid)
		cv.fill(image.Rect(l.plot.Min.X-1-tickLen, y, l.plot.Min.X-1, y+1), black)
		s := l.y.label(v)
		cv.text(image.Pt(l.plot.Min.X-1-tickLen-gap-textWidth(s), y-capH/2), s, black)
	}
	cv.outline(l.plot, black)
}

// drawSeries draws the lines of c, each in its colour, later over earlier.
func (c Chart) drawSeries(cv canvas, l layout) {
	for i, s := range c.Series {
		col := palette[i]
		if len(s.Points) == 1 {
			p := l.at(s.Points[0])
			cv.fill(image.Rect(p.X-2, p.Y-3, p.X+4, p.Y+3), col)
		}
		for j := 1; j < len(s.Points); j++ {
			p, q := l.at(s.Points[j-1]), l.at(s.Points[j])
			if s.Step {
				corner := image.Pt(q.X, p.Y)
				cv.line(p, corner, col)
				p = corner
			}
			cv.line(p, q, col)
		}
	}
}

// drawTitles draws the title and the axis labels of c.
func (c Chart) drawTitles(cv canvas, l layout) {
	if c.Title != "" {
		x := max(pad, l.plot.Min.X+(l.plot.Dx()-textWidth(c.Title))/2)
		cv.text(image.Pt(x, pad), c.Title, black)
		cv.text(image.Pt(x+1, pad), c.Title, black) // bold
	}
	if c.XLabel != "" {
		x := max(pad, l.plot.Min.X+(l.plot.Dx()-textWidth(c.XLabel))/2)
		cv.text(image.Pt(x, l.size.Y-pad-textH), c.XLabel, black)
	}
	if c.YLabel != "" {
		y := min(l.size.Y-pad, l.plot.Min.Y+(l.plot.Dy()+textWidth(c.YLabel))/2)
		cv.textUp(image.Pt(pad, y), c.YLabel, black)
	}
}

// legendBox returns where the legend of c goes: inside the frame, in the
// first of its corners top left, top right, bottom right, bottom left that
// covers the fewest pixels of the series already drawn on img.
func (c Chart) legendBox(img *image.RGBA, l layout) image.Rectangle {
	w := 0
	for _, s := range c.Series {
		w = max(w, textWidth(s.Name))
	}
	size := image.Pt(gap+swatchW+gap+w+gap, len(c.Series)*legendRow+gap/2)
	in := l.plot.Inset(legendInset)
	corners := [...]image.Point{
		in.Min,
		{in.Max.X - size.X, in.Min.Y},
		in.Max.Sub(size),
		{in.Min.X, in.Max.Y - size.Y},
	}
	var best image.Rectangle
	bestCount := -1
	for _, p := range corners {
		r := image.Rectangle{p, p.Add(size)}
		n := 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if isSeriesColour(img.RGBAAt(x, y)) {
					n++
				}
			}
		}
		if bestCount < 0 || n < bestCount {
			best, bestCount = r, n
		}
	}
	return best
}

// drawLegend draws a box naming each series of c beside a swatch of its
// colour; it draws nothing for a chart without series.
func (c Chart) drawLegend(cv canvas, l layout) {
	if len(c.Series) == 0 {
		return
	}
	box := c.legendBox(cv.img, l)
	cv.fill(box, white)
	cv.outline(box, grey)
	for i, s := range c.Series {
		top := box.Min.Y + gap/2 + i*legendRow + (legendRow-textH)/2
		x := box.Min.X + gap
		cv.fill(image.Rect(x, top+capH/2-2, x+swatchW, top+capH/2+3), palette[i])
		cv.text(image.Pt(x+swatchW+gap, top), s.Name, black)
	}
}

func isSeriesColour(c color.RGBA) bool {
	for _, p := range palette {
		if c == p {
			return true
		}
	}
	return false
}
