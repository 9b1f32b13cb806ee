package plot

import (
	"slices"
	"testing"
)

func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lo, hi float64
		want   []float64
		exp    int
	}{
		{"0 to 37 steps by 5", 0, 37, []float64{0, 5, 10, 15, 20, 25, 30, 35}, 0},
		{"0 to 38.11 steps by 5", 0, 38.11, []float64{0, 5, 10, 15, 20, 25, 30, 35}, 0},
		{"0 to 7 steps by 1", 0, 7, []float64{0, 1, 2, 3, 4, 5, 6, 7}, 0},
		{"0 to 9 steps by 2", 0, 9, []float64{0, 2, 4, 6, 8}, 0},
		{"0 to 100 steps by 20", 0, 100, []float64{0, 20, 40, 60, 80, 100}, 1},
		{"0 to 1030 steps by 200", 0, 1030, []float64{0, 200, 400, 600, 800, 1000}, 2},
		{"0 to 1545 steps by 200", 0, 1545, []float64{0, 200, 400, 600, 800, 1000, 1200, 1400}, 2},
		{"0 to 1600 steps by 500, the fewest ticks", 0, 1600, []float64{0, 500, 1000, 1500}, 2},
		{"0 to 1 steps by 0.2", 0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, -1},
		{"0 to 0.05 steps by 0.01", 0, 0.05, []float64{0, 0.01, 0.02, 0.03, 0.04, 0.05}, -2},
		{"-3 to 12 steps by 2", -3, 12, []float64{-2, 0, 2, 4, 6, 8, 10, 12}, 0},
		{"-0.45 to 0 steps by 0.1", -0.45, 0, []float64{-0.4, -0.3, -0.2, -0.1, 0}, -1},
		{"0 to 3e9 steps by 5e8", 0, 3e9, []float64{0, 5e8, 1e9, 1.5e9, 2e9, 2.5e9, 3e9}, 8},
		{"±1e300 steps by 5e299", -1e300, 1e300, []float64{-1e300, -5e299, 0, 5e299, 1e300}, 299},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, exp := niceTicks(tc.lo, tc.hi)
			if !slices.Equal(got, tc.want) || exp != tc.exp {
				t.Errorf("niceTicks(%g, %g) = %v, 10^%d; want %v, 10^%d", tc.lo, tc.hi, got, exp, tc.want, tc.exp)
			}
		})
	}
}

func TestNewAxis(t *testing.T) {
	for _, tc := range []struct {
		name           string
		lo, hi         float64 // of the data
		wantLo, wantHi float64
		labels         []string
	}{
		{"no data, or all zero, is 0 to 1", 0, 0, 0, 1.03, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		{"all equal and positive starts at 0", 4, 4, 0, 4.12, []string{"0", "1", "2", "3", "4"}},
		{"all equal and negative ends at 0", -4, -4, -4.12, 0, []string{"-4", "-3", "-2", "-1", "0"}},
		{"positive data starts at 0", 300, 1000, 0, 1030, []string{"0", "200", "400", "600", "800", "1000"}},
		{"data across 0 gets headroom on both sides", -10, 10, -10.6, 10.6, []string{"-10", "-5", "0", "5", "10"}},
		{"steps of 10^7 or more print as exponents", 0, 4e7, 0, 4.12e7, []string{"0", "1e+07", "2e+07", "3e+07", "4e+07"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAxis(tc.lo, tc.hi)
			var labels []string
			for _, v := range a.ticks {
				labels = append(labels, a.label(v))
			}
			if !approx(a.lo, tc.wantLo) || !approx(a.hi, tc.wantHi) || !slices.Equal(labels, tc.labels) {
				t.Errorf("newAxis(%g, %g) = %g..%g ticks %q; want %g..%g ticks %q", tc.lo, tc.hi, a.lo, a.hi, labels, tc.wantLo, tc.wantHi, tc.labels)
			}
		})
	}
}

func approx(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
