// Package plot draws a line chart as a PNG image, with nothing but the
// standard library, for the figures of the scale benchmark in BENCHMARKS.md:
//
//	c := plot.Chart{
//		Title:  "Pods evicted since the silence began",
//		XLabel: "seconds since the silence began",
//		YLabel: "pods evicted",
//		Series: []plot.Series{
//			{Name: "kube-controller-manager", Step: true, Points: kcm}, // []plot.Point{{X: 305, Y: 20}, …}
//			{Name: "ours", Step: true, Points: ours},
//		},
//	}
//	err := c.PNG(f) // 900x540 unless Width and Height say otherwise
//
// It mirrors no upstream component. A [Chart] is drawn on a white
// background: a black frame whose left and bottom sides are the axes, ticks
// with labels and a light grid, the title above, the X label below, the Y
// label turned to read upwards on the left, and a legend naming each
// [Series] beside a swatch of its colour.
//
// # Guarantees
//
//   - Each axis spans from min(0, the least value) to max(0, the greatest),
//     widened by 3% of that span away from zero so that no line runs along
//     the frame. An axis without data, or whose data are all zero, spans 0
//     to 1.
//   - Ticks fall on the multiples of a step of 1, 2 or 5 × 10^k inside the
//     axis: the smallest such step that gives at most 8 ticks (4 to 8 on an
//     axis from zero). Labels carry as many decimals as the step, and print
//     as 1e+07 once the step is 10^7 or more.
//   - Series take, in order, the colours of the Okabe–Ito palette, which
//     readers with the common colour-vision deficiencies tell apart, less
//     its yellow and black: blue, vermillion, bluish green, reddish purple,
//     orange, sky blue. So a chart holds at most 6 series. Lines are 2
//     pixels thick; later series are drawn over earlier ones.
//   - The legend sits inside the frame, in whichever corner (top left, top
//     right, bottom right, bottom left, first on a tie) covers the fewest
//     pixels of the lines.
//   - Text uses a 5x9 bitmap font drawn for this package, scaled by 2, that
//     covers printable ASCII (32 to 126); any other rune is drawn as a box.
//   - [Chart.PNG] never panics on its input: a point that is NaN, infinite
//     or beyond ±1e300, an X less than the X before it in its series, a
//     size out of range or too small to plot in, or more than 6 series is
//     an error naming the input ([ErrInvalidPoint], [ErrInvalidChart]), and
//     nothing is written.
//
// Drawing costs a few passes over the image's pixels plus one line per pair
// of consecutive points.
package plot
