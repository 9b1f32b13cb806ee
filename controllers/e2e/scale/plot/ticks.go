package plot

import (
	"math"
	"strconv"
)

// maxTicks is the most ticks an axis gets; the 1-2-5 steps then give 4 to 8
// on an axis from zero.
const maxTicks = 8

// headroom is the share of an axis's data span added beyond the data on each
// side away from zero, so that a line at the data's extreme is not drawn on
// the frame.
const headroom = 0.03

// axis is the range of one axis and its ticks.
type axis struct {
	lo, hi float64
	ticks  []float64
	exp    int // the step between ticks is 1, 2 or 5 × 10^exp
}

// label returns the text of tick value v: as many decimals as the step has,
// or the shortest exponent form once the step is 10^7 or more.
func (a axis) label(v float64) string {
	if a.exp >= 7 {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', max(0, -a.exp), 64)
}

// newAxis returns the axis of data from lo to hi (lo <= hi, both finite
// and within ±1e300): it spans min(0, lo) to max(0, hi), widened by
// headroom away from zero; all-zero data gets 0 to 1.
func newAxis(lo, hi float64) axis {
	lo, hi = min(0, lo), max(0, hi)
	span := hi - lo
	if span < 1e-300 {
		hi, span = lo+1, 1
	}
	if lo < 0 {
		lo -= span * headroom
	}
	if hi > 0 {
		hi += span * headroom
	}
	ticks, exp := niceTicks(lo, hi)
	return axis{lo: lo, hi: hi, ticks: ticks, exp: exp}
}

// niceTicks returns the ticks within lo..hi (lo < hi, both finite): the
// multiples of step = m × 10^exp, m in {1, 2, 5}, for the smallest such
// step that has at most maxTicks of them there. A tick is computed as
// (i·m) × 10^exp or (i·m) / 10^-exp, so that 0.6 is the float64 nearest 0.6,
// not 3 × 0.2.
func niceTicks(lo, hi float64) ([]float64, int) {
	// 10^exp <= span/maxTicks is below the answer: the loop climbs to it.
	exp := int(math.Floor(math.Log10((hi - lo) / maxTicks)))
	for ; ; exp++ {
		for _, m := range [...]int{1, 2, 5} {
			step := decimal(float64(m), exp)
			first := math.Ceil(lo/step - 1e-9)
			last := math.Floor(hi/step + 1e-9)
			if last-first+1 > maxTicks {
				continue
			}
			ticks := make([]float64, 0, maxTicks)
			for i := first; i <= last; i++ {
				if i == 0 {
					i = 0 // not -0, from Ceil(-1e-9), which formats as "-0"
				}
				ticks = append(ticks, decimal(i*float64(m), exp))
			}
			return ticks, exp
		}
	}
}

// decimal returns n × 10^exp, rounded once.
func decimal(n float64, exp int) float64 {
	if exp < 0 {
		return n / math.Pow10(-exp)
	}
	return n * math.Pow10(exp)
}
