package plot

import (
	"image"
	"testing"
)

// TestLine checks, for every direction from a centre point, that a line
// inks its two ends and no more than a 2-pixel-wide Bresenham line would.
func TestLine(t *testing.T) {
	ink := palette[0]
	p := image.Pt(10, 10)
	for qx := 0; qx <= 20; qx++ {
		for qy := 0; qy <= 20; qy++ {
			q := image.Pt(qx, qy)
			cv := canvas{image.NewRGBA(image.Rect(-2, -2, 23, 23))}
			cv.line(p, q, ink)
			n := 0
			for y := -2; y < 23; y++ {
				for x := -2; x < 23; x++ {
					if cv.img.RGBAAt(x, y) == ink {
						n++
					}
				}
			}
			steps := max(abs(q.X-p.X), abs(q.Y-p.Y)) + 1
			if n < 2*steps || n > 4*steps {
				t.Errorf("line %v-%v inks %d pixels, want %d to %d", p, q, n, 2*steps, 4*steps)
			}
			for _, end := range []image.Point{p, q} {
				if cv.img.RGBAAt(end.X, end.Y) != ink {
					t.Errorf("line %v-%v misses its end %v", p, q, end)
				}
			}
		}
	}
}

func TestTextWidth(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"a", glyphW * scale},
		{"ab", 2*glyphW*scale + scale},
		{"é", glyphW * scale}, // one rune, drawn as a box
	} {
		if got := textWidth(tc.s); got != tc.want {
			t.Errorf("textWidth(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}
