package scale

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evictkit/eviction/controllers/e2e/scale/plot"
)

// compare lists how ours differs from kube-controller-manager's run of the
// same scenario: other pods evicted, other taints added or removed on a node
// or in another order, more API writes per eviction (Events apart, see
// [Requests.DecisionWrites]).
//
// A racy scenario's evicted pods and taints depend on how the passes fell
// in each run; only the writes per eviction are compared.
func compare(ref, got Result, racy bool) []string {
	var out []string
	if racy {
		return writesPerEviction(ref, got)
	}
	if d := diffSets(ref.EvictedPods, got.EvictedPods); d != "" {
		out = append(out, "evicted pods differ: "+d)
	}
	var nodes []string
	for n := range ref.NodeTaints {
		nodes = append(nodes, n)
	}
	for n := range got.NodeTaints {
		if _, ok := ref.NodeTaints[n]; !ok {
			nodes = append(nodes, n)
		}
	}
	slices.Sort(nodes)
	var differ []string
	for _, n := range nodes {
		if !slices.Equal(ref.NodeTaints[n], got.NodeTaints[n]) {
			differ = append(differ, fmt.Sprintf("%s kcm %v ours %v", n, ref.NodeTaints[n], got.NodeTaints[n]))
		}
	}
	if len(differ) > 0 {
		out = append(out, fmt.Sprintf("%d nodes' NoExecute taints differ: %s", len(differ), head(differ)))
	}
	return append(out, writesPerEviction(ref, got)...)
}

// writesPerEviction says if ours wrote more per eviction than kcm, Events
// apart (kcm's recorder drops them when busy).
func writesPerEviction(ref, got Result) []string {
	if ref.Evicted > 0 && got.Evicted > 0 {
		r := float64(ref.Requests.DecisionWrites()) / float64(ref.Evicted)
		g := float64(got.Requests.DecisionWrites()) / float64(got.Evicted)
		if g > r {
			return []string{fmt.Sprintf("API writes per eviction, Events apart: ours %.2f, kcm %.2f", g, r)}
		}
	}
	return nil
}

// diffSets describes how b differs from a, both sorted; "" if equal.
func diffSets(a, b []string) string {
	in := func(s []string, x string) bool { _, ok := slices.BinarySearch(s, x); return ok }
	var onlyA, onlyB []string
	for _, x := range a {
		if !in(b, x) {
			onlyA = append(onlyA, x)
		}
	}
	for _, x := range b {
		if !in(a, x) {
			onlyB = append(onlyB, x)
		}
	}
	if len(onlyA) == 0 && len(onlyB) == 0 {
		return ""
	}
	return fmt.Sprintf("%d only by kcm (%s), %d only by ours (%s)", len(onlyA), head(onlyA), len(onlyB), head(onlyB))
}

// writeResults writes results.json, summary.md and a PNG per scenario
// (evictions over time, kcm against ours) into dir.
func writeResults(dir string, results []Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("scale: results: %w", err)
	}
	b, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return fmt.Errorf("scale: results: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
		return fmt.Errorf("scale: results: %w", err)
	}
	var md strings.Builder
	summarize(&md, results)
	if err := os.WriteFile(filepath.Join(dir, "summary.md"), []byte(md.String()), 0o644); err != nil {
		return fmt.Errorf("scale: results: %w", err)
	}
	byScenario := map[string][]Result{}
	var names []string
	for _, r := range results {
		if _, ok := byScenario[r.Scenario]; !ok {
			names = append(names, r.Scenario)
		}
		byScenario[r.Scenario] = append(byScenario[r.Scenario], r)
	}
	for _, name := range names {
		if err := writePlot(filepath.Join(dir, name+".png"), byScenario[name]); err != nil {
			return err
		}
	}
	return nil
}

// writePlot draws the pods evicted over time of each run of one scenario.
func writePlot(path string, runs []Result) error {
	s := runs[0].Shape
	c := plot.Chart{
		Title:  fmt.Sprintf("%s: pods evicted (%d nodes, %d pods)", runs[0].Scenario, s.Nodes, s.Nodes*s.PodsPerNode),
		XLabel: "seconds since the scenario began",
		YLabel: "pods evicted",
	}
	for _, r := range runs {
		pts := []plot.Point{{X: 0, Y: 0}}
		for i, at := range r.Timeline {
			pts = append(pts, plot.Point{X: at, Y: float64(i + 1)})
		}
		name := "kube-controller-manager"
		switch r.Variant {
		case Ours:
			name = "ours (evictkit-controller-manager)"
		case OursSplit:
			name = "ours (two programs)"
		}
		c.Series = append(c.Series, plot.Series{Name: name, Points: pts, Step: true})
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("scale: plot: %w", err)
	}
	if err := c.PNG(f); err != nil {
		f.Close()
		return fmt.Errorf("scale: plot %s: %w", path, err)
	}
	return f.Close()
}

// summarize writes a Markdown table of the results, a row per run, and the
// requests of each run by verb and resource.
func summarize(w io.Writer, results []Result) {
	fmt.Fprintln(w, "| scenario | controllers | evicted (expected) | last eviction | CPU scenario | CPU whole run | peak RSS | API writes | writes / eviction | without Events | apiserver mean / p99 | problems |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range results {
		perEviction, decisions := "–", "–"
		if r.Evicted > 0 {
			perEviction = fmt.Sprintf("%.2f", float64(r.Requests.Writes())/float64(r.Evicted))
			decisions = fmt.Sprintf("%.2f", float64(r.Requests.DecisionWrites())/float64(r.Evicted))
		}
		p99 := r.APILatency.P99.String()
		if r.APILatency.P99 < 0 {
			p99 = "> 60s"
		}
		expected := strconv.Itoa(r.Expected)
		if r.Expected < 0 {
			expected = "no prediction"
		}
		fmt.Fprintf(w, "| %s | %s | %d (%s) | %s | %s | %s | %.0f MiB | %d | %s | %s | %s / %s | %d |\n",
			r.Scenario, r.Variant, r.Evicted, expected, r.LastEviction.Round(100*time.Millisecond),
			r.CPU.Round(10*time.Millisecond), r.AllCPU.Round(10*time.Millisecond), float64(r.PeakRSS)/(1<<20),
			r.Requests.Writes(), perEviction, decisions, r.APILatency.Mean.Round(100*time.Microsecond), p99, len(r.Problems))
	}
	fmt.Fprintln(w)
	for _, r := range results {
		var keys []string
		for k := range r.Requests {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %d", k, r.Requests[k])
		}
		fmt.Fprintf(w, "- %s, %s: %s\n", r.Scenario, r.Variant, strings.Join(parts, ", "))
	}
	for _, r := range results {
		if r.Watcher != nil {
			fmt.Fprintf(w, "- %s, %s: the watcher beside it (watches only) used %s of CPU over the scenario, peak RSS %.0f MiB\n",
				r.Scenario, r.Variant, r.Watcher.CPU.Round(10*time.Millisecond), float64(r.Watcher.PeakRSS)/(1<<20))
		}
	}
}
