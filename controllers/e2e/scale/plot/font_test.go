package plot

import (
	"strings"
	"testing"
)

// TestGlyphs checks that every printable ASCII rune has a glyph of glyphH
// rows of glyphW pixels, each '#' or '.', that only the space is blank, and
// that no two glyphs are alike.
func TestGlyphs(t *testing.T) {
	seen := map[string]rune{}
	for r := rune(32); r <= 126; r++ {
		g := glyph(r)
		rows := strings.Split(g, " ")
		if len(rows) != glyphH {
			t.Errorf("glyph %q has %d rows, want %d", r, len(rows), glyphH)
			continue
		}
		for i, row := range rows {
			if len(row) != glyphW || strings.Trim(row, ".#") != "" {
				t.Errorf("glyph %q row %d is %q, want %d of '.' or '#'", r, i, row, glyphW)
			}
		}
		if blank := !strings.Contains(g, "#"); blank != (r == ' ') {
			t.Errorf("glyph %q blank = %t", r, blank)
		}
		if other, ok := seen[g]; ok {
			t.Errorf("glyph %q is the same as glyph %q", r, other)
		}
		seen[g] = r
	}
}

func TestGlyphUnknownIsBox(t *testing.T) {
	for _, r := range []rune{0, '\t', 127, 'é', '→', -1} {
		if g := glyph(r); g != boxGlyph {
			t.Errorf("glyph(%q) = %q, want the box %q", r, g, boxGlyph)
		}
	}
}
