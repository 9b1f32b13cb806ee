package plot

import (
	"image"
	"image/color"
	"image/draw"
	"unicode/utf8"
)

// canvas draws on an RGBA image; what falls outside it is dropped.
type canvas struct{ img *image.RGBA }

// fill paints r in col.
func (c canvas) fill(r image.Rectangle, col color.RGBA) {
	draw.Draw(c.img, r, image.NewUniform(col), image.Point{}, draw.Src)
}

// outline paints the 1-pixel border just outside r in col.
func (c canvas) outline(r image.Rectangle, col color.RGBA) {
	r = r.Inset(-1)
	c.fill(image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+1), col)
	c.fill(image.Rect(r.Min.X, r.Max.Y-1, r.Max.X, r.Max.Y), col)
	c.fill(image.Rect(r.Min.X, r.Min.Y, r.Min.X+1, r.Max.Y), col)
	c.fill(image.Rect(r.Max.X-1, r.Min.Y, r.Max.X, r.Max.Y), col)
}

// line draws from p to q with a 2x2 brush covering x..x+1 and y-1..y at
// each point of the Bresenham line.
func (c canvas) line(p, q image.Point, col color.RGBA) {
	dx, dy := abs(q.X-p.X), -abs(q.Y-p.Y)
	sx, sy := sign(q.X-p.X), sign(q.Y-p.Y)
	e := dx + dy
	for {
		c.fill(image.Rect(p.X, p.Y-1, p.X+2, p.Y+1), col)
		if p == q {
			return
		}
		e2 := 2 * e // both moves are judged by the error before either
		if e2 >= dy {
			e += dy
			p.X += sx
		}
		if e2 <= dx {
			e += dx
			p.Y += sy
		}
	}
}

// text draws s left to right with the top of its first glyph cell at p.
func (c canvas) text(p image.Point, s string, col color.RGBA) {
	c.glyphs(s, col, func(i, x, y int) image.Point {
		return image.Pt(p.X+i*advance+x*scale, p.Y+y*scale)
	})
}

// textUp draws s bottom to top, turned a quarter left, with the bottom left
// corner of its first glyph cell at p.
func (c canvas) textUp(p image.Point, s string, col color.RGBA) {
	c.glyphs(s, col, func(i, x, y int) image.Point {
		return image.Pt(p.X+y*scale, p.Y-(i*(glyphW+1)+x+1)*scale)
	})
}

// glyphs paints a scale×scale block at at(i, x, y) for each inked pixel
// (x, y) of the i-th rune of s.
func (c canvas) glyphs(s string, col color.RGBA, at func(i, x, y int) image.Point) {
	i := 0
	for _, r := range s {
		g := glyph(r)
		for y := range glyphH {
			for x := range glyphW {
				if inked(g, x, y) {
					p := at(i, x, y)
					c.fill(image.Rect(p.X, p.Y, p.X+scale, p.Y+scale), col)
				}
			}
		}
		i++
	}
}

// textWidth returns the width in pixels of s drawn by text.
func textWidth(s string) int {
	n := utf8.RuneCountInString(s)
	if n == 0 {
		return 0
	}
	return n*advance - scale
}

func abs(n int) int { return max(n, -n) }

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
