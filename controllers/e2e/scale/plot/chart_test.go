package plot

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"
)

func TestPNGErrors(t *testing.T) {
	ours := func(ps ...Point) Chart { return Chart{Series: []Series{{Name: "kcm"}, {Name: "ours", Points: ps}}} }
	for _, tc := range []struct {
		name  string
		chart Chart
		want  error
		names string // what the message must name
	}{
		{"X NaN", ours(Point{0, 0}, Point{math.NaN(), 1}), ErrInvalidPoint, `series "ours" point 1: X NaN`},
		{"Y +Inf", ours(Point{0, math.Inf(1)}), ErrInvalidPoint, `series "ours" point 0: Y +Inf`},
		{"Y -Inf", ours(Point{0, math.Inf(-1)}), ErrInvalidPoint, `series "ours" point 0: Y -Inf`},
		{"X beyond 1e300", ours(Point{-2e300, 0}), ErrInvalidPoint, `series "ours" point 0: X -2e+300`},
		{"X decreasing", ours(Point{0, 0}, Point{1, 1}, Point{4, 2}, Point{2.5, 3}), ErrInvalidPoint,
			`plot: series "ours" point 3: X 2.5 is before the previous X 4`},
		{"7 series", Chart{Series: make([]Series, 7)}, ErrInvalidChart, "7 series"},
		{"negative width", Chart{Width: -3}, ErrInvalidChart, "size -3x0"},
		{"height beyond 8192", Chart{Height: 10000}, ErrInvalidChart, "size 0x10000"},
		{"too small to plot", Chart{Width: 100, Height: 60, XLabel: "x"}, ErrInvalidChart, "size 100x60 leaves a plot area of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := tc.chart.PNG(&buf)
			if !errors.Is(err, tc.want) {
				t.Fatalf("PNG() = %v, want an error wrapping %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.names) {
				t.Errorf("PNG() = %q, want it to name %q", err, tc.names)
			}
			if buf.Len() != 0 {
				t.Errorf("PNG() wrote %d bytes with its error, want none", buf.Len())
			}
		})
	}
}

type failingWriter struct{}

var errDiskFull = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestPNGWriteError(t *testing.T) {
	if err := (Chart{}).PNG(failingWriter{}); !errors.Is(err, errDiskFull) {
		t.Errorf("PNG(failing writer) = %v, want an error wrapping %v", err, errDiskFull)
	}
}

// TestPNGDegenerate renders charts with nothing or little to scale by.
func TestPNGDegenerate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chart Chart
		size  image.Point
	}{
		{"empty", Chart{}, image.Pt(900, 540)},
		{"series without points", Chart{Title: "t", Series: []Series{{Name: "none"}}}, image.Pt(900, 540)},
		{"one point", Chart{Series: []Series{{Name: "one", Points: []Point{{3, 3}}}}}, image.Pt(900, 540)},
		{"all zero", Chart{Series: []Series{{Name: "zero", Step: true, Points: []Point{{0, 0}, {0, 0}}}}}, image.Pt(900, 540)},
		{"all equal", Chart{Series: []Series{{Name: "flat", Points: []Point{{5, 7}, {5, 7}, {5, 7}}}}}, image.Pt(900, 540)},
		{"negative", Chart{Series: []Series{{Name: "neg", Points: []Point{{-5, -1e-9}, {-1, -3e12}}}}}, image.Pt(900, 540)},
		{"tiny", Chart{Series: []Series{{Name: "tiny", Points: []Point{{0, 1e-310}, {1e-320, 0}}}}}, image.Pt(900, 540)},
		{"huge", Chart{Series: []Series{{Name: "huge", Points: []Point{{-1e300, -1e300}, {1e300, 1e300}}}}}, image.Pt(900, 540)},
		{"sized", Chart{Width: 400, Height: 300, Series: []Series{{Name: "s", Points: []Point{{0, 1}, {2, 3}}}}}, image.Pt(400, 300)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := render(t, tc.chart)
			if got := img.Bounds().Size(); got != tc.size {
				t.Errorf("size = %v, want %v", got, tc.size)
			}
		})
	}
}

// TestPNGTwoStepSeries renders the chart the scale benchmark draws and
// checks what a reader needs to see in it.
func TestPNGTwoStepSeries(t *testing.T) {
	c := Chart{
		Title:  "Pods evicted since the silence began",
		XLabel: "seconds",
		YLabel: "pods evicted",
		Series: []Series{
			{Name: "kube-controller-manager", Step: true, Points: []Point{{0, 0}, {305, 20}, {315, 40}, {325, 60}, {400, 60}}},
			{Name: "ours", Step: true, Points: []Point{{0, 0}, {300, 30}, {301, 60}, {400, 60}}},
		},
	}
	img := render(t, c)
	if got, want := img.Bounds(), image.Rect(0, 0, 900, 540); got != want {
		t.Errorf("bounds = %v, want %v", got, want)
	}
	for _, p := range []image.Point{{0, 0}, {899, 0}, {0, 539}, {899, 539}} {
		if got := rgba(img.At(p.X, p.Y)); got != white {
			t.Errorf("corner %v is %v, want white", p, got)
		}
	}
	for i := range c.Series {
		col := palette[i]
		if n := count(img, col); n < 200 {
			t.Errorf("series %d: %d pixels of its colour %v, want its line", i, n, col)
		}
		// A line is 2 pixels thick; only a legend swatch is a block of
		// swatchW x 5.
		if !hasBlock(img, col, swatchW, 5) {
			t.Errorf("series %d: no legend swatch of its colour %v", i, col)
		}
	}
	if n := count(img, black); n < 1000 {
		t.Errorf("%d black pixels, want the frame, ticks and text", n)
	}
}

// TestLegendAvoidsData checks that the legend goes to a corner the series
// leave empty: top left when they rise, top right when one falls from there.
func TestLegendAvoidsData(t *testing.T) {
	for _, tc := range []struct {
		name         string
		points       []Point
		right, lower bool
	}{
		{"rising", []Point{{0, 0}, {10, 10}}, false, false},
		{"falling", []Point{{0, 10}, {10, 0}}, true, false},
		{"step up at once", []Point{{0, 0}, {0, 10}, {10, 10}}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Chart{Series: []Series{{Name: "a series", Points: tc.points}}}
			l, err := c.layout()
			if err != nil {
				t.Fatal(err)
			}
			cv := canvas{image.NewRGBA(image.Rectangle{Max: l.size})}
			c.drawSeries(cv, l)
			box, mid := c.legendBox(cv.img, l), l.plot.Min.Add(l.plot.Max).Div(2)
			if right, lower := box.Min.X > mid.X, box.Min.Y > mid.Y; right != tc.right || lower != tc.lower {
				t.Errorf("legend at %v in plot %v: right %t lower %t, want %t %t", box, l.plot, right, lower, tc.right, tc.lower)
			}
		})
	}
}

// render returns c drawn by PNG and decoded by image/png.
func render(t *testing.T, c Chart) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := c.PNG(&buf); err != nil {
		t.Fatalf("PNG() = %v", err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("decoding the PNG: %v", err)
	}
	return img
}

func rgba(c color.Color) color.RGBA { return color.RGBAModel.Convert(c).(color.RGBA) }

func count(img image.Image, col color.RGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if rgba(img.At(x, y)) == col {
				n++
			}
		}
	}
	return n
}

// hasBlock reports whether img holds a w x h block all of colour col.
func hasBlock(img image.Image, col color.RGBA, w, h int) bool {
	b := img.Bounds()
	for y := b.Min.Y; y+h <= b.Max.Y; y++ {
	next:
		for x := b.Min.X; x+w <= b.Max.X; x++ {
			for dy := range h {
				for dx := range w {
					if rgba(img.At(x+dx, y+dy)) != col {
						continue next
					}
				}
			}
			return true
		}
	}
	return false
}
