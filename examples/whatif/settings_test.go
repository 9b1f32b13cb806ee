package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The settings of a cluster run with short periods (as the controllers' e2e
// suite runs kube-controller-manager): a pass every second, Unknown after
// 4 s of silence, so at the fifth pass; ten nodes a second tainted; each pod
// leaves its toleration after the taint.
func TestSettingsShortPeriods(t *testing.T) {
	args := []string{"node-down", "worker-a2", "--node-monitor-period=1s", "--node-monitor-grace-period", "4s", "--node-eviction-rate=10"}
	tl := runTimeline(t, "", args...)
	if got := tl.after(kindUnknown)["worker-a2"]; got != 5 {
		t.Errorf("worker-a2 Unknown after %vs, want 5", got)
	}
	if got := tl.after(kindTainted)["worker-a2"]; got != 5 {
		t.Errorf("worker-a2 tainted after %vs, want 5", got)
	}
	evicted := tl.after(kindEvicted)
	for pod, want := range map[string]float64{
		"shop/checkout-5d8f8301a-nlpfr": 5 + 60,
		"shop/search-5d8f8745e-z6jzw":   5 + 300,
		"shop/cart-redis-2":             5 + 900,
	} {
		if got := evicted[pod]; got != want {
			t.Errorf("%s evicted after %vs, want %v", pod, got, want)
		}
	}

	var doc struct {
		Model  string
		Config map[string]float64
	}
	if err := json.Unmarshal([]byte(mustRun(t, "", append(args, "-o", "json")...)), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"monitorPeriodSeconds": 1, "monitorGracePeriodSeconds": 4, "evictionRate": 10,
		"secondaryEvictionRate": 0.01, "largeClusterThreshold": 50, "unhealthyZoneThreshold": 0.55}
	for k, v := range want {
		if got := doc.Config[k]; float32(got) != float32(v) {
			t.Errorf("config %s = %v, want %v", k, got, v)
		}
	}
	if !strings.Contains(doc.Model, "v1.37.2 with --node-monitor-period=1s --node-monitor-grace-period=4s --node-eviction-rate=10.") {
		t.Errorf("the model does not name the flags given: %q", doc.Model)
	}
}

// The defaults given as flags simulate what no flags do; only the model's
// words differ.
func TestSettingsDefaultsAsFlags(t *testing.T) {
	for _, sc := range [][]string{{"node-down", "worker-a1", "worker-a2", "worker-a3", "worker-a4"}, {"taint", "worker-b4", "dedicated=ml:NoExecute"}} {
		plain := runTimeline(t, "", sc...)
		flags := runTimeline(t, "", append(sc, "--node-monitor-period=5s", "--node-monitor-grace-period=50s",
			"--node-startup-grace-period=1m", "--node-eviction-rate=0.1")...)
		if !reflect.DeepEqual(plain.Events, flags.Events) || !reflect.DeepEqual(plain.Nodes, flags.Nodes) {
			t.Errorf("%s: the default settings as flags give another timeline", sc[0])
		}
	}
	if out := mustRun(t, "", "taint", "worker-b4", "dedicated=ml:NoExecute", "--node-monitor-period=2s"); !strings.Contains(out, "a pass every 2s") {
		t.Errorf("taint with --node-monitor-period=2s: the model does not say so:\n%s", out)
	}
}

// The eviction rate sets the zone's token bucket: a whole zone down at 0.5
// nodes/s is tainted a node every 2 s. At 0 upstream's bucket, made with one
// token that never comes back, lets the zone's first node through and no
// other.
func TestSettingsEvictionRate(t *testing.T) {
	zone := []string{"node-down", "worker-a1", "worker-a2", "worker-a3", "worker-a4"}
	noExecute := func(tl timeline) []float64 {
		var at []float64
		for _, e := range tl.Events {
			if e.Kind == kindTainted && strings.Contains(e.Detail, "NoExecute") {
				at = append(at, *e.AfterSeconds)
			}
		}
		return at
	}
	if got, want := noExecute(runTimeline(t, "", append(zone, "--node-eviction-rate=0.5")...)), []float64{55, 57, 59, 61}; !slices.Equal(got, want) {
		t.Errorf("at 0.5 nodes/s NoExecute taints at %v, want %v", got, want)
	}
	stopped := runTimeline(t, "", append(zone, "--node-eviction-rate=0")...)
	if got, want := noExecute(stopped), []float64{55}; !slices.Equal(got, want) {
		t.Errorf("at 0 nodes/s NoExecute taints at %v, want %v", got, want)
	}
	if got := stopped.after(kindNotTainted); len(got) != 3 {
		t.Errorf("at 0 nodes/s never-tainted %v, want the three other nodes", got)
	}
}

// A node that never posted a Ready condition gets the startup grace period,
// counted from its creation (10 s before t0 here).
func TestSettingsStartupGrace(t *testing.T) {
	snapshot := `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, creationTimestamp: "2026-01-01T00:00:00Z", labels: {topology.kubernetes.io/zone: z}}
  status:
    conditions:
    - {type: Ready, status: "True", lastHeartbeatTime: "2026-01-01T00:10:00Z", lastTransitionTime: "2026-01-01T00:00:00Z"}
- apiVersion: v1
  kind: Node
  metadata: {name: n2, creationTimestamp: "2026-01-01T00:09:50Z", labels: {topology.kubernetes.io/zone: z}}
`
	for flag, want := range map[string]float64{"--node-startup-grace-period=60s": 55, "--node-startup-grace-period=20s": 15} {
		if got := runTimeline(t, snapshot, "-f", "-", "node-down", "n2", flag).after(kindUnknown)["n2"]; got != want {
			t.Errorf("%s: n2 Unknown after %vs, want %v", flag, got, want)
		}
	}
}

// Bad settings are bad input that names the flag; the flags apply to the
// scenarios that run the node lifecycle controller only.
func TestSettingsBadInput(t *testing.T) {
	summary := filepath.Join("testdata", "summary-worker-a2.json")
	if _, err := os.Stat(summary); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"node-down", "worker-a2", "--node-monitor-period=abc"}, "-node-monitor-period"},
		{[]string{"node-down", "worker-a2", "--node-monitor-period=50ms"}, "100ms"},
		{[]string{"node-down", "worker-a2", "--node-monitor-grace-period=0s"}, "-node-monitor-grace-period"},
		{[]string{"node-down", "worker-a2", "--node-monitor-grace-period=-4s"}, "positive"},
		{[]string{"node-down", "worker-a2", "--node-startup-grace-period=48h"}, "24h"},
		{[]string{"node-down", "worker-a2", "--node-eviction-rate=-1"}, "-node-eviction-rate"},
		{[]string{"node-down", "worker-a2", "--node-eviction-rate=NaN"}, "-node-eviction-rate"},
		{[]string{"node-down", "worker-a2", "--node-eviction-rate=fast"}, `"fast"`},
		{[]string{"pressure", "worker-a2", "--summary", summary, "--node-monitor-period=1s"}, "--node-monitor-period only applies to node-down and taint"},
		{[]string{"preempt", "testdata/preemptor.yaml", "--node-eviction-rate=1"}, "--node-eviction-rate"},
	} {
		out, errOut, code := runCLI(t, "", tc.args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("whatif %s: exit %d, stdout %q, stderr %q; want exit 2 and one line naming %q",
				strings.Join(tc.args, " "), code, out, errOut, tc.want)
		}
	}
}
