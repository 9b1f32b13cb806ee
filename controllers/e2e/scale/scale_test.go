package scale

import (
	"context"
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var (
	nodesFlag     = flag.Int("nodes", 0, "nodes of the cluster; 0 skips TestScale (./scripts/scale sets it)")
	podsFlag      = flag.Int("pods", 10, "pods per node")
	scenariosFlag = flag.String("scenarios", "zone,flap,taint,all", "scenarios to run, comma-separated")
	variantsFlag  = flag.String("variants", "kcm,ours", "whose controllers to run, comma-separated: kcm, ours (one process), ours-split (two programs)")
	profileFlag   = flag.String("profile", "", "folder for CPU and heap profiles of ours over each scenario; empty means none")
	outFlag       = flag.String("out", "", "folder for results.json, summary.md and the plots; empty means none")
	watcherFlag   = flag.Bool("watcher", false, "also run, beside each variant's controllers, a program that only watches what they watch, and report its CPU and peak RSS: the floor any implementation pays")
	envFlag       = flag.String("env", "", "environment variables for every variant's controllers, comma-separated NAME=VALUE (GOMAXPROCS=1,GOGC=200); empty means the test's own")
)

// TestScale runs each scenario with kube-controller-manager's controllers
// and with ours, on fresh control planes, and fails if either evicts other
// pods than the scenario predicts, or ours differs from kcm's.
func TestScale(t *testing.T) {
	if *nodesFlag <= 0 {
		t.Skip("a measurement, not a check: ./scripts/scale NODES runs it (-nodes=N)")
	}
	shape := Shape{Nodes: *nodesFlag, PodsPerNode: *podsFlag, Zones: 3}
	names := strings.Split(*scenariosFlag, ",")
	var chosen []Variant
	for v := range strings.SplitSeq(*variantsFlag, ",") {
		chosen = append(chosen, Variant(v))
	}
	env, err := parseEnv(*envFlag)
	if err != nil {
		t.Fatal(err)
	}
	opts := options{profile: *profileFlag, env: env, watcher: *watcherFlag}
	var results []Result
	for _, name := range names {
		sc, ok := scenarioNamed(name)
		if !ok {
			t.Fatalf("no scenario %q; there are zone, flap, taint and all", name)
		}
		byVariant := map[Variant]Result{}
		for _, v := range chosen {
			if !slices.Contains(variants, v) {
				t.Fatalf("no variant %q; there are %v", v, variants)
			}
			t.Run(name+"/"+string(v), func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				res := run(ctx, t, shape, sc, v, opts)
				for _, p := range res.Problems {
					t.Errorf("%s", p)
				}
				t.Logf("%d of %d expected pods evicted, the last %v after the start; CPU %v over the scenario (%v in all), peak RSS %.0f MiB, %d API writes, setup %v",
					res.Evicted, res.Expected, res.LastEviction, res.CPU, res.AllCPU, float64(res.PeakRSS)/(1<<20), res.Requests.Writes(), res.Setup)
				byVariant[v] = res
				results = append(results, res)
			})
		}
		ref, okRef := byVariant[KCM]
		for _, v := range []Variant{Ours, OursSplit} {
			if got, ok := byVariant[v]; okRef && ok {
				for _, p := range compare(ref, got, sc.racy) {
					t.Errorf("%s: %s against kcm: %s", name, v, p)
				}
			}
		}
	}
	var md strings.Builder
	summarize(&md, results)
	t.Logf("\n%s", md.String())
	if *outFlag != "" {
		dir, err := filepath.Abs(*outFlag)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeResults(dir, results); err != nil {
			t.Fatal(err)
		}
		t.Logf("results in %s", dir)
	}
}

func scenarioNamed(name string) (scenario, bool) {
	for _, sc := range scenarios {
		if sc.name == name {
			return sc, true
		}
	}
	return scenario{}, false
}
