package plot_test

import (
	"bytes"
	"fmt"
	"image/png"

	"github.com/evictkit/eviction/controllers/e2e/scale/plot"
)

func ExampleChart_PNG() {
	c := plot.Chart{
		Title:  "Pods evicted since the silence began",
		XLabel: "seconds since the silence began",
		YLabel: "pods evicted",
		Series: []plot.Series{
			{Name: "kube-controller-manager", Step: true, Points: []plot.Point{{X: 0, Y: 0}, {X: 305, Y: 20}, {X: 315, Y: 40}}},
			{Name: "ours", Step: true, Points: []plot.Point{{X: 0, Y: 0}, {X: 300, Y: 40}, {X: 315, Y: 40}}},
		},
	}
	var buf bytes.Buffer // an *os.File for BENCHMARKS.md
	if err := c.PNG(&buf); err != nil {
		fmt.Println(err)
		return
	}
	img, err := png.Decode(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(img.Bounds())
	// Output: (0,0)-(900,540)
}

func ExampleChart_PNG_unordered() {
	c := plot.Chart{Series: []plot.Series{
		{Name: "ours", Points: []plot.Point{{X: 0, Y: 0}, {X: 1, Y: 1}, {X: 4, Y: 2}, {X: 2.5, Y: 3}}},
	}}
	var buf bytes.Buffer
	fmt.Println(c.PNG(&buf))
	// Output: plot: series "ours" point 3: X 2.5 is before the previous X 4: invalid point
}
