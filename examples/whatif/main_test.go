package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/evictkit/eviction/examples/internal/golden"
)

// runCLI runs the command in-process.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

// mustRun runs the command and fails unless it succeeds silently on stderr.
func mustRun(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, stdin, args...)
	if code != 0 || errOut != "" {
		t.Fatalf("whatif %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
	}
	return out
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGolden runs every scenario and compares its output with
// testdata/NAME.golden; go test -update rewrites them.
func TestGolden(t *testing.T) {
	kind := readTestdata(t, "kind-cluster.yaml")
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
	}{
		{"demo", "", nil},
		{"demo-json", "", []string{"-o", "json"}},
		{"node-down-partial-zone", "", []string{"node-down", "worker-a1", "worker-a2", "worker-a3"}},
		{"node-down-full-zone", "", []string{"node-down", "worker-a4", "worker-a3", "worker-a2", "worker-a1"}},
		{"node-down-all-zones", "", []string{"node-down", "worker-a1", "worker-a2", "worker-a3", "worker-a4",
			"worker-b1", "worker-b2", "worker-b3", "worker-b4", "worker-c1", "worker-c2", "worker-c3", "worker-c4"}},
		{"node-down-gpu", "", []string{"node-down", "worker-b4"}},
		{"node-down-legacy", "", []string{"node-down", "worker-a2", "--pod-eviction-timeout=5m"}},
		{"node-down-legacy-json", "", []string{"node-down", "worker-a1", "worker-b4", "--pod-eviction-timeout=2m", "-o", "json"}},
		{"taint-noexecute", "", []string{"taint", "worker-b4", "dedicated=ml:NoExecute"}},
		{"taint-unreachable", "", []string{"taint", "worker-a2", "node.kubernetes.io/unreachable:NoExecute"}},
		{"taint-noschedule", "", []string{"taint", "worker-a2", "team=payments:NoSchedule"}},
		{"taint-managed", "", []string{"taint", "worker-c1", "node.kubernetes.io/memory-pressure:NoSchedule"}},
		{"preempt", "", []string{"preempt", "testdata/preemptor.yaml"}},
		{"preempt-json", "", []string{"preempt", "testdata/preemptor.yaml", "-o", "json"}},
		{"preempt-config", "", []string{"preempt", "testdata/preemptor.yaml", "--config", "testdata/scheduler-config.yaml"}},
		{"preempt-config-flags-json", "", []string{"preempt", "testdata/preemptor.yaml", "--config=testdata/scheduler-config.yaml",
			"--strict-pdb=false", "--min-candidate-nodes-absolute=2", "-o", "json"}},
		{"pressure-below-no-threshold", "", []string{"pressure", "worker-a2", "--signal", "memory.available=200Mi"}},
		{"pressure-memory", "", []string{"pressure", "worker-a2", "--signal", "memory.available=50Mi", "--usage", "testdata/usage.yaml"}},
		{"pressure-nodefs", "", []string{"pressure", "worker-a2", "--signal=nodefs.available=8%", "--usage=testdata/usage.yaml"}},
		{"pressure-json", "", []string{"-o", "json", "pressure", "worker-a2", "--signal", "memory.available=50Mi", "--usage", "testdata/usage.yaml"}},
		{"pressure-summary", "", []string{"pressure", "worker-a2", "--summary", "testdata/summary-worker-a2.json"}},
		{"kind-node-down", "", []string{"-f", "testdata/kind-cluster.yaml", "node-down", "kind-worker"}},
		{"kind-control-plane-down", "", []string{"-f", "testdata/kind-cluster.yaml", "node-down", "kind-control-plane"}},
		{"stdin-node-down", kind, []string{"node-down", "kind-worker2", "-f", "-"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			golden.Check(t, tc.name+".golden", []byte(mustRun(t, tc.stdin, tc.args...)))
		})
	}
}

// TestDemoFitsATerminal keeps the README demo readable.
func TestDemoFitsATerminal(t *testing.T) {
	out := mustRun(t, "")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > 40 {
		t.Errorf("the demo prints %d lines, want at most 40", len(lines))
	}
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("line %d has %d columns, want at most 100: %q", i+1, n, l)
		}
		if strings.TrimRight(l, " ") != l {
			t.Errorf("line %d has trailing spaces: %q", i+1, l)
		}
	}
	if !strings.Contains(out, "What if worker-a2 stops heartbeating") || !strings.Contains(out, "Model:") {
		t.Errorf("the demo lacks its header:\n%s", out)
	}
}

// timeline is the part of the JSON document the tests read.
type timeline struct {
	Notes    []string  `json:"notes"`
	Scenario string    `json:"scenario"`
	T0       time.Time `json:"t0"`
	Nodes    []struct {
		Name        string     `json:"name"`
		UnknownAt   *time.Time `json:"unknownAt"`
		NoExecuteAt *time.Time `json:"noExecuteAt"`
		Pods        int        `json:"pods"`
		PodsEvicted int        `json:"podsEvicted"`
	} `json:"nodes"`
	Events []struct {
		At           *time.Time `json:"at"`
		AfterSeconds *float64   `json:"afterSeconds"`
		Kind         string     `json:"kind"`
		Node         string     `json:"node"`
		Zone         string     `json:"zone"`
		Pod          string     `json:"pod"`
		Detail       string     `json:"detail"`
	} `json:"events"`
}

func runTimeline(t *testing.T, stdin string, args ...string) timeline {
	t.Helper()
	out := mustRun(t, stdin, append(args, "-o", "json")...)
	var tl timeline
	if err := json.Unmarshal([]byte(out), &tl); err != nil {
		t.Fatalf("-o json does not decode: %v\n%s", err, out)
	}
	return tl
}

// after returns, for each pod or node event of the given kind, its offset
// from t0 in seconds (-1 for never).
func (tl timeline) after(kind string) map[string]float64 {
	m := map[string]float64{}
	for _, e := range tl.Events {
		if e.Kind != kind {
			continue
		}
		key := e.Pod
		if key == "" {
			key = e.Node
		}
		if key == "" {
			key = e.Zone
		}
		m[key] = -1
		if e.AfterSeconds != nil {
			m[key] = *e.AfterSeconds
		}
	}
	return m
}

// The demo: worker-a2 goes silent; Unknown after 55 s (5 s passes, 50 s
// grace), tainted in the same pass (quiet zone, full bucket), then each pod
// leaves after its own toleration.
func TestNodeDownDemoTimeline(t *testing.T) {
	tl := runTimeline(t, "")
	if tl.Scenario != "node-down" || !tl.T0.Equal(time.Date(2026, 11, 29, 11, 59, 57, 0, time.UTC)) {
		t.Fatalf("scenario %q t0 %v", tl.Scenario, tl.T0)
	}
	if got := tl.after(kindUnknown)["worker-a2"]; got != 55 {
		t.Errorf("worker-a2 Unknown after %vs, want 55", got)
	}
	if got := tl.after(kindTainted); got["worker-a2"] != 55 {
		t.Errorf("worker-a2 tainted after %vs, want 55", got["worker-a2"])
	}
	evicted := tl.after(kindEvicted)
	for pod, want := range map[string]float64{
		"shop/checkout-5d8f8301a-nlpfr":       55 + 60,
		"shop/search-5d8f8745e-z6jzw":         55 + 300,
		"batch/nightly-report-29391840-9dh8m": 55 + 300,
		"shop/cart-redis-2":                   55 + 900,
	} {
		if got, ok := evicted[pod]; !ok || got != want {
			t.Errorf("%s evicted after %v (listed %v), want %vs", pod, got, ok, want)
		}
	}
	stays := tl.after(kindStays)
	for _, pod := range []string{
		"ingress/ingress-nginx-controller-5d8f81f09-vmx98", // tolerates unreachable forever
		"kube-system/kube-proxy-bftvs",                     // DaemonSet tolerating everything
		"monitoring/node-exporter-7b7vt",                   // DaemonSet tolerations
	} {
		if _, ok := stays[pod]; !ok {
			t.Errorf("%s should stay", pod)
		}
		if _, ok := evicted[pod]; ok {
			t.Errorf("%s should not be evicted", pod)
		}
	}
	if n := tl.Nodes[0]; n.Name != "worker-a2" || n.Pods != 9 || n.PodsEvicted != 5 {
		t.Errorf("node summary %+v, want worker-a2 with 5 of 9 pods evicted", n)
	}
	for i := 1; i < len(tl.Events); i++ {
		a, b := tl.Events[i-1].At, tl.Events[i].At
		if a == nil && b != nil || a != nil && b != nil && b.Before(*a) {
			t.Fatalf("events not sorted by time at %d", i)
		}
	}
}

// Three of four nodes of a zone: the zone is partially disrupted and small
// (≤ 50 nodes), so its rate drops to 0 and nothing is tainted NoExecute.
func TestNodeDownPartialZoneStopsTainting(t *testing.T) {
	tl := runTimeline(t, "", "node-down", "worker-a1", "worker-a2", "worker-a3")
	if got := tl.after(kindTainted); len(got) != 3 { // the NoSchedule taints only
		t.Errorf("tainted events %v, want the three NoSchedule taints", got)
	}
	for _, e := range tl.Events {
		if e.Kind == kindTainted && strings.Contains(e.Detail, "NoExecute") {
			t.Errorf("unexpected NoExecute taint: %+v", e)
		}
	}
	if got := tl.after(kindEvicted); len(got) != 0 {
		t.Errorf("evictions %v, want none", got)
	}
	if got := tl.after(kindNotTainted); len(got) != 3 {
		t.Errorf("never-tainted %v, want the three nodes", got)
	}
	zone := tl.after(kindZone)
	if got, ok := zone["us-east-1a"]; !ok || got != 55 {
		t.Errorf("zone state change %v, want us-east-1a at 55s", zone)
	}
}

// A whole zone down while others are healthy: FullDisruption keeps the
// normal rate, one node every 10 s through the zone's token bucket.
func TestNodeDownFullZoneTaintsTenSecondsApart(t *testing.T) {
	tl := runTimeline(t, "", "node-down", "worker-a1", "worker-a2", "worker-a3", "worker-a4")
	var at []float64
	for _, e := range tl.Events {
		if e.Kind == kindTainted && strings.Contains(e.Detail, "NoExecute") {
			at = append(at, *e.AfterSeconds)
		}
	}
	if want := []float64{55, 65, 75, 85}; !slices.Equal(at, want) {
		t.Errorf("NoExecute taints at %v, want %v", at, want)
	}
	if got := tl.after(kindEvicted)["shop/cart-redis-2"]; got != 65+900 {
		t.Errorf("cart-redis-2 on the second node tainted evicted after %v, want 965", got)
	}
}

// Every zone down: upstream's "master disruption" mode stops every eviction.
func TestNodeDownAllZonesEvictsNothing(t *testing.T) {
	args := []string{"node-down"}
	for _, z := range []string{"a", "b", "c"} {
		for i := 1; i <= 4; i++ {
			args = append(args, "worker-"+z+strconv.Itoa(i))
		}
	}
	tl := runTimeline(t, "", args...)
	if got := tl.after(kindMasterDisruption); len(got) != 1 {
		t.Errorf("all-zones-down events %v, want one", got)
	}
	if got := tl.after(kindEvicted); len(got) != 0 {
		t.Errorf("evictions %v, want none", got)
	}
	for _, n := range tl.Nodes {
		if n.NoExecuteAt != nil || n.UnknownAt == nil {
			t.Errorf("node %+v: want Unknown and never tainted NoExecute", n)
		}
	}
}

// The kind snapshot (kubectl get nodes,pods,pdb -A -o yaml, with an unlabelled
// control plane): each node is its own zone, so a down worker's zone is fully
// disrupted while the others are healthy and it is tainted at once.
func TestNodeDownKindCluster(t *testing.T) {
	tl := runTimeline(t, "", "-f", "testdata/kind-cluster.yaml", "node-down", "kind-worker")
	if got := tl.after(kindTainted)["kind-worker"]; got != 55 {
		t.Errorf("kind-worker tainted after %v, want 55", got)
	}
	if got := tl.after(kindEvicted)["default/web-6f7d9c8b5-8k2lp"]; got != 355 {
		t.Errorf("web pod evicted after %v, want 355", got)
	}
	// The same snapshot from standard input gives the same timeline.
	kind := readTestdata(t, "kind-cluster.yaml")
	fromStdin := runTimeline(t, kind, "-f", "-", "node-down", "kind-worker")
	if !reflect.DeepEqual(fromStdin.Events, tl.Events) || !reflect.DeepEqual(fromStdin.Nodes, tl.Nodes) {
		t.Errorf("stdin gives another timeline than the file:\n%+v\n%+v", fromStdin.Events, tl.Events)
	}
}

// A NoExecute taint evicts the pods that do not tolerate it at once and
// leaves those that tolerate everything.
func TestTaintNoExecute(t *testing.T) {
	tl := runTimeline(t, "", "taint", "worker-b4", "dedicated=ml:NoExecute")
	evicted := tl.after(kindEvicted)
	if got, ok := evicted["ml/trainer-llm-ft-9qjv6"]; !ok || got != 0 {
		t.Errorf("trainer evicted after %v (%v), want at once", got, ok)
	}
	if _, ok := tl.after(kindStays)["kube-system/kube-proxy-4tcqg"]; !ok {
		t.Error("kube-proxy tolerates every taint and should stay")
	}
}

// A hand-made unreachable:NoExecute taint on a Ready node is removed by the
// node lifecycle controller at its next pass, which cancels the evictions
// that were not due yet.
func TestTaintUnreachableOnReadyNodeIsUndone(t *testing.T) {
	tl := runTimeline(t, "", "taint", "worker-a2", "node.kubernetes.io/unreachable:NoExecute")
	if got := tl.after(kindTaintRemoved)["worker-a2"]; got != 5 {
		t.Errorf("taint removed after %v, want 5 (the next monitor pass)", got)
	}
	if got := tl.after(kindCancelled)["shop/checkout-5d8f8301a-nlpfr"]; got != 5 {
		t.Errorf("checkout eviction cancelled after %v, want 5", got)
	}
	if got := tl.after(kindEvicted); len(got) != 0 {
		t.Errorf("evictions %v, want none", got)
	}
}

// NoSchedule evicts nothing.
func TestTaintNoScheduleEvictsNothing(t *testing.T) {
	tl := runTimeline(t, "", "taint", "worker-a2", "team=payments:NoSchedule")
	if got := tl.after(kindEvicted); len(got) != 0 {
		t.Errorf("evictions %v, want none", got)
	}
	if got := tl.after(kindNothingEvicted); len(got) != 1 {
		t.Errorf("nothing-evicted events %v, want one", got)
	}
}

// The preemptor of testdata fits nowhere; eight nodes are candidates and
// worker-a3 wins on the second criterion, the priority of its most important
// victim, over worker-a1.
func TestPreempt(t *testing.T) {
	out := mustRun(t, "", "preempt", "testdata/preemptor.yaml", "-o", "json")
	var doc struct {
		Outcome   string `json:"outcome"`
		Chosen    string `json:"chosen"`
		Criterion string `json:"criterion"`
		RunnerUp  string `json:"runnerUp"`
		Victims   []struct {
			Pod      string `json:"pod"`
			Priority int32  `json:"priority"`
		} `json:"victims"`
		Nodes []struct {
			Name          string `json:"name"`
			Fit           string `json:"fit"`
			Candidate     bool   `json:"candidate"`
			PDBViolations int    `json:"pdbViolations"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("-o json is not JSON: %v", err)
	}
	if doc.Outcome != "preempts" || doc.Chosen != "worker-a3" || doc.RunnerUp != "worker-a1" ||
		doc.Criterion != "lowest highest-victim priority" {
		t.Errorf("outcome %q chosen %q by %q over %q", doc.Outcome, doc.Chosen, doc.Criterion, doc.RunnerUp)
	}
	for _, v := range doc.Victims {
		if v.Priority >= 100000 {
			t.Errorf("victim %s has priority %d, not below the preemptor's", v.Pod, v.Priority)
		}
	}
	candidates := 0
	for _, n := range doc.Nodes {
		if n.Candidate {
			candidates++
		}
		if n.Name == "worker-b4" && (n.Candidate || n.Fit != "UnschedulableAndUnresolvable") {
			t.Errorf("the tainted GPU node: %+v", n)
		}
		if n.Name == "worker-b1" && n.PDBViolations != 1 {
			t.Errorf("worker-b1 evicts cart-redis-0, whose PDB allows no disruption: %+v", n)
		}
	}
	if candidates != 8 {
		t.Errorf("%d candidates, want 8", candidates)
	}
}

// A pod small enough to fit needs no preemption.
func TestPreemptFits(t *testing.T) {
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: small}\nspec:\n  priorityClassName: shop-critical\n" +
		"  containers: [{name: c, resources: {requests: {cpu: 100m}}}]\n"
	out := mustRun(t, pod, "preempt", "-", "-o", "json")
	var doc struct {
		Outcome string `json:"outcome"`
		Pod     struct {
			Name     string `json:"name"`
			Priority int32  `json:"priority"`
		} `json:"pod"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Outcome != "fits" || doc.Pod.Name != "default/small" || doc.Pod.Priority != 100000 {
		t.Errorf("got %+v, want default/small with shop-critical's 100000 fitting", doc)
	}
	// The table says so once, after one header.
	table := mustRun(t, pod, "preempt", "-")
	if n := strings.Count(table, "What if pod default/small"); n != 1 || !strings.Contains(table, "without preemption") {
		t.Errorf("table with %d headers:\n%s", n, table)
	}
}

// Bad input: exit code 2, one line on stderr that starts with "whatif: " and
// names the problem, nothing on stdout.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deployment := write("deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n")
	garbage := write("garbage.yaml", "nodes: [unclosed\n  - : :\n")
	podsOnly := write("pods.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
	nodeYAML := write("node.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n")
	badQuantity := write("badq.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, resources: {requests: {cpu: lots}}}]\n")
	usageBadKey := write("u1.yaml", "search: {memory: 1Gi}\n")
	usageBadQuantity := write("u2.yaml", "shop/search-5d8f8745e-z6jzw: {memory: much}\n")
	usageUnknown := write("u3.yaml", "shop/search-5d8f8745e-z6jzw: {cpu: 1}\n")
	const schedHead = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
	badSchedArgs := write("bad-args.yaml", schedHead+"profiles:\n- plugins: {multiPoint: {enabled: [{name: EvictkitPreemption}]}}\n"+
		"  pluginConfig:\n  - name: EvictkitPreemption\n    args: {strict: true}\n")
	otherProfile := write("other.yaml", schedHead+"profiles:\n- schedulerName: batch-scheduler\n")
	defaultProfile := write("default.yaml", schedHead+"profiles:\n- schedulerName: default-scheduler\n")
	unknownClass := write("class.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  priorityClassName: gold\n  containers: [{name: c}]\n")

	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		want  string // the message names this
	}{
		{"unknown scenario", "", []string{"frobnicate"}, `"frobnicate"`},
		{"unknown flag", "", []string{"--frob", "node-down", "worker-a2"}, "-frob"},
		{"bad output format", "", []string{"-o", "yaml"}, `"yaml"`},
		{"node-down without nodes", "", []string{"node-down"}, "node-down"},
		{"pod eviction timeout not a duration", "", []string{"node-down", "worker-a2", "--pod-eviction-timeout=soon"}, "-pod-eviction-timeout"},
		{"pod eviction timeout zero", "", []string{"node-down", "worker-a2", "--pod-eviction-timeout=0s"}, "positive duration"},
		{"pod eviction timeout past the horizon", "", []string{"node-down", "worker-a2", "--pod-eviction-timeout=25h"}, "at most 24h0m0s"},
		{"pod eviction timeout for taint", "", []string{"taint", "worker-a2", "a=b:NoExecute", "--pod-eviction-timeout=5m"}, "only applies to node-down"},
		{"unknown node", "", []string{"node-down", "worker-z9"}, `"worker-z9"`},
		{"one unknown node among known", "", []string{"node-down", "worker-a1", "nope"}, `"nope"`},
		{"unknown node for taint", "", []string{"taint", "worker-z9", "a=b:NoExecute"}, `"worker-z9"`},
		{"unreadable file", "", []string{"-f", filepath.Join(dir, "missing.yaml"), "node-down", "n"}, "missing.yaml"},
		{"a directory", "", []string{"-f", dir, "node-down", "n"}, dir},
		{"wrong kind", "", []string{"-f", deployment, "node-down", "web"}, "Deployment"},
		{"not YAML", "", []string{"-f", garbage, "node-down", "n"}, "garbage.yaml"},
		{"no nodes", "", []string{"-f", podsOnly, "node-down", "p"}, "no nodes"},
		{"garbage on stdin", "{not json", []string{"-f", "-", "node-down", "n"}, "standard input"},
		{"empty stdin", "", []string{"-f", "-", "node-down", "n"}, "no nodes"},
		{"duplicate node", "apiVersion: v1\nkind: Node\nmetadata: {name: node1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: node1}\n", []string{"-f", "-", "node-down", "node1"}, `node "node1" appears twice`},
		{"file without scenario", "", []string{"-f", nodeYAML}, "no scenario"},
		{"taint arguments", "", []string{"taint", "worker-a2"}, "taint"},
		{"bad taint spec", "", []string{"taint", "worker-a2", "a=b=c:NoExecute"}, `"a=b=c:NoExecute"`},
		{"bad taint effect", "", []string{"taint", "worker-a2", "a=b:Sometimes"}, "Sometimes"},
		{"taint without effect", "", []string{"taint", "worker-a2", "dedicated=ml"}, "dedicated=ml"},
		{"taint already there", "", []string{"taint", "worker-b4", "nvidia.com/gpu=x:NoSchedule"}, "nvidia.com/gpu"},
		{"signal flag elsewhere", "", []string{"node-down", "worker-a2", "--signal", "memory.available=1Gi"}, "--signal"},
		{"pressure without signal", "", []string{"pressure", "worker-a2"}, "--signal"},
		{"pressure unknown node", "", []string{"pressure", "worker-z9", "--signal", "memory.available=1Gi"}, `"worker-z9"`},
		{"unknown signal", "", []string{"pressure", "worker-a2", "--signal", "foo.available=1Gi"}, `"foo.available"`},
		{"signal without amount", "", []string{"pressure", "worker-a2", "--signal", "memory.available"}, "SIGNAL=AMOUNT"},
		{"bad signal amount", "", []string{"pressure", "worker-a2", "--signal", "memory.available=lots"}, `"lots"`},
		{"bad signal percentage", "", []string{"pressure", "worker-a2", "--signal", "nodefs.available=120%"}, `"120%"`},
		{"percentage without capacity", "", []string{"pressure", "worker-a2", "--signal", "nodefs.inodesFree=5%"}, "capacity"},
		{"summary and signal", "", []string{"pressure", "worker-a2", "--summary", "testdata/summary-worker-a2.json", "--signal", "memory.available=1Gi"}, "--summary"},
		{"summary not a summary", "", []string{"pressure", "worker-a2", "--summary", "testdata/usage.yaml"}, "usage.yaml"},
		{"summary only elsewhere", "", []string{"node-down", "worker-a2", "--summary", "testdata/summary-worker-a2.json"}, "--summary"},
		{"signal twice", "", []string{"pressure", "worker-a2", "--signal", "memory.available=1Gi", "--signal", "memory.available=2Gi"}, "twice"},
		{"usage file missing", "", []string{"pressure", "worker-a2", "--signal", "memory.available=1Gi", "--usage", filepath.Join(dir, "u.yaml")}, "u.yaml"},
		{"usage not a map", "", []string{"pressure", "worker-a2", "--signal", "memory.available=1Gi", "--usage", nodeYAML}, "node.yaml"},
		{"usage bad key", "", []string{"pressure", "worker-a2", "--signal", "memory.available=1Gi", "--usage", usageBadKey}, `"search"`},
		{"usage bad quantity", "", []string{"pressure", "worker-a2", "--signal", "memory.available=1Gi", "--usage", usageBadQuantity}, "much"},
		{"usage unknown resource", "", []string{"pressure", "worker-a2", "--signal", "memory.available=1Gi", "--usage", usageUnknown}, `"cpu"`},
		{"usage flag elsewhere", "", []string{"taint", "worker-a2", "a=b:NoSchedule", "--usage", "x"}, "--usage"},
		{"preempt missing file", "", []string{"preempt", filepath.Join(dir, "pod.yaml")}, "pod.yaml"},
		{"preempt wrong kind", "", []string{"preempt", nodeYAML}, "Node"},
		{"preempt bad quantity", "", []string{"preempt", badQuantity}, "badq.yaml"},
		{"preempt unknown priority class", "", []string{"preempt", unknownClass}, `"gold"`},
		{"preempt stdin twice", "", []string{"-f", "-", "preempt", "-"}, "standard input"},
		{"preempt flag elsewhere", "", []string{"node-down", "worker-a2", "--strict-pdb"}, "--strict-pdb only applies to preempt"},
		{"preempt config elsewhere", "", []string{"taint", "worker-a2", "a=b:NoSchedule", "--config", "c.yaml"}, "--config only applies to preempt"},
		{"preempt percentage not a number", "", []string{"preempt", "testdata/preemptor.yaml", "--min-candidate-nodes-percentage=ten"}, "min-candidate-nodes-percentage"},
		{"preempt percentage above 100", "", []string{"preempt", "testdata/preemptor.yaml", "--min-candidate-nodes-percentage=120"}, "minCandidateNodesPercentage 120"},
		{"preempt both zero", "", []string{"preempt", "testdata/preemptor.yaml", "--min-candidate-nodes-percentage=0", "--min-candidate-nodes-absolute=0"}, "both 0"},
		{"preempt strict not a bool", "", []string{"preempt", "testdata/preemptor.yaml", "--strict-pdb=maybe"}, "strict-pdb"},
		{"preempt config missing", "", []string{"preempt", "testdata/preemptor.yaml", "--config", filepath.Join(dir, "sched.yaml")}, "sched.yaml"},
		{"preempt config not a config", "", []string{"preempt", "testdata/preemptor.yaml", "--config", "testdata/preemptor.yaml"}, "KubeSchedulerConfiguration"},
		{"preempt config bad args", "", []string{"preempt", "testdata/preemptor.yaml", "--config", badSchedArgs}, `unknown field "strict"`},
		{"preempt config no profile", "", []string{"preempt", "testdata/preemptor.yaml", "--config", otherProfile}, `no profile for schedulerName "default-scheduler"`},
		{"preempt strict for DefaultPreemption", "", []string{"preempt", "testdata/preemptor.yaml", "--config", defaultProfile, "--strict-pdb"}, "DefaultPreemption, which has no strictPDB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, tc.stdin, tc.args...)
			if code != 2 {
				t.Errorf("exit code %d, want 2 (stderr %q)", code, errOut)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if !strings.HasPrefix(errOut, "whatif: ") || strings.Count(errOut, "\n") != 1 || !strings.HasSuffix(errOut, "\n") {
				t.Errorf("stderr %q, want one line starting with whatif: ", errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q does not name %q", errOut, tc.want)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help"} {
		out, errOut, code := runCLI(t, "", arg)
		if code != 0 || errOut != "" || !strings.Contains(out, "Usage:") || !strings.Contains(out, "--usage FILE") {
			t.Errorf("%s: exit %d, stderr %q, stdout %q", arg, code, errOut, out)
		}
	}
}

// pressureDoc is the part of the pressure JSON document the tests read.
type pressureDoc struct {
	Reclaim *struct {
		Signal   string `json:"signal"`
		Resource string `json:"resource"`
	} `json:"reclaim"`
	Hypothetical bool     `json:"hypothetical"`
	UsageSource  string   `json:"usageSource"`
	Notes        []string `json:"notes"`
	Observations []struct {
		Signal    string `json:"signal"`
		Available string `json:"available"`
	} `json:"observations"`
	Thresholds []struct {
		Threshold string `json:"threshold"`
		Met       bool   `json:"met"`
	} `json:"thresholds"`
	Pods []struct {
		Pod               string `json:"pod"`
		QOS               string `json:"qos"`
		Evictable         bool   `json:"evictable"`
		UsageFromRequests bool   `json:"usageFromRequests"`
		Usage             string `json:"usage"`
		OOMScoreAdj       []struct {
			Container   string `json:"container"`
			OOMScoreAdj int    `json:"oomScoreAdj"`
		} `json:"oomScoreAdj"`
		Enough bool `json:"enough"`
		Needed bool `json:"needed"`
	} `json:"pods"`
	Message string `json:"message"`
}

func runPressure(t *testing.T, args ...string) pressureDoc {
	t.Helper()
	out := mustRun(t, "", append([]string{"pressure", "-o", "json"}, args...)...)
	var doc pressureDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("-o json is not JSON: %v", err)
	}
	return doc
}

func podOrder(doc pressureDoc) []string {
	var out []string
	for _, p := range doc.Pods {
		out = append(out, p.Pod)
	}
	return out
}

// memory.available 50Mi meets the default 100Mi threshold. With the usage
// file, the pods using more memory than they request go first (lowest
// priority first, then the largest excess), then the others by priority;
// critical DaemonSet pods are ranked but never evicted. Evicting the first
// pod frees 300Mi, which is enough.
func TestPressureMemoryOrder(t *testing.T) {
	doc := runPressure(t, "worker-a2", "--signal", "memory.available=50Mi", "--usage", "testdata/usage.yaml")
	if doc.Reclaim == nil || doc.Reclaim.Signal != "memory.available" || doc.Reclaim.Resource != "memory" || doc.Hypothetical {
		t.Fatalf("reclaim %+v hypothetical %v", doc.Reclaim, doc.Hypothetical)
	}
	want := []string{
		"batch/nightly-report-29391840-9dh8m",              // exceeds, priority -100
		"shop/orders-worker-5d8f89680-l6ks4",               // exceeds by 600Mi, priority 0
		"shop/search-5d8f8745e-z6jzw",                      // exceeds by 476Mi, priority 0
		"monitoring/node-exporter-7b7vt",                   // within request, priority 0
		"shop/cart-redis-2",                                // priority 10000
		"ingress/ingress-nginx-controller-5d8f81f09-vmx98", // priority 50000
		"shop/checkout-5d8f8301a-nlpfr",                    // priority 100000
		"kube-system/aws-node-nkh5h",                       // critical
		"kube-system/kube-proxy-bftvs",                     // critical
	}
	if got := podOrder(doc); !slices.Equal(got, want) {
		t.Errorf("order\n got %q\nwant %q", got, want)
	}
	for i, p := range doc.Pods {
		if wantEvictable := i < 7; p.Evictable != wantEvictable {
			t.Errorf("%s evictable %v", p.Pod, p.Evictable)
		}
		if p.Enough != (i == 0) || p.Needed != (i == 0) {
			t.Errorf("%s: enough %v needed %v, want only the first", p.Pod, p.Enough, p.Needed)
		}
	}
	if !strings.Contains(doc.Message, "Container nightly-report was using 300Mi, request is 0") {
		t.Errorf("message %q", doc.Message)
	}
}

// nodefs.available 8% of the node's 100Gi disk meets the default 10%
// threshold: the kubelet reclaims ephemeral-storage, first by garbage
// collection (a note says the model assumes it frees nothing), then by
// evicting the pods whose disk usage most exceeds their request, lowest
// priority first; the nightly report's 6Gi is enough on its own.
func TestPressureNodefsOrder(t *testing.T) {
	doc := runPressure(t, "worker-a2", "--signal=nodefs.available=8%", "--usage=testdata/usage.yaml")
	if doc.Reclaim == nil || doc.Reclaim.Signal != "nodefs.available" || doc.Reclaim.Resource != "ephemeral-storage" || doc.Hypothetical {
		t.Fatalf("reclaim %+v hypothetical %v", doc.Reclaim, doc.Hypothetical)
	}
	got := podOrder(doc)
	want := []string{
		"batch/nightly-report-29391840-9dh8m", // exceeds by 6Gi, priority -100
		"shop/search-5d8f8745e-z6jzw",         // exceeds by 2Gi, priority 0
		"shop/orders-worker-5d8f89680-l6ks4",  // exceeds by 500Mi, priority 0
	}
	if !slices.Equal(got[:3], want) {
		t.Errorf("order %q, want %q first", got, want)
	}
	for i, p := range doc.Pods {
		if p.Enough != (i == 0) || p.Needed != (i == 0) {
			t.Errorf("%s: enough %v needed %v, want only the first", p.Pod, p.Enough, p.Needed)
		}
		if critical := strings.HasPrefix(p.Pod, "kube-system/"); p.Evictable == critical {
			t.Errorf("%s evictable %v", p.Pod, p.Evictable)
		}
	}
	if !strings.Contains(doc.Message, "low on resource: ephemeral-storage") || !strings.Contains(doc.Message, "Container nightly-report was using 6Gi") {
		t.Errorf("message %q", doc.Message)
	}
	if len(doc.Notes) != 1 || !strings.Contains(doc.Notes[0], "DeleteAllUnusedContainers and DeleteUnusedImages") {
		t.Errorf("notes %q: want the garbage collections named", doc.Notes)
	}
}

// --summary reads the signals and the usage from the kubelet's stats
// summary: memory.available 60Mi meets the default threshold, pods listed in
// it carry its working sets, the one it does not list falls back to its
// requests, and the output names the file as the source of both.
func TestPressureSummary(t *testing.T) {
	doc := runPressure(t, "worker-a2", "--summary", "testdata/summary-worker-a2.json")
	if doc.Reclaim == nil || doc.Reclaim.Signal != "memory.available" {
		t.Fatalf("reclaim %+v", doc.Reclaim)
	}
	if len(doc.Observations) == 0 || doc.Observations[0].Signal != "memory.available" || doc.Observations[0].Available != "60Mi" {
		t.Errorf("observations %+v", doc.Observations)
	}
	if !strings.Contains(doc.UsageSource, "stats summary testdata/summary-worker-a2.json for 8 pods") {
		t.Errorf("usage source %q", doc.UsageSource)
	}
	for _, p := range doc.Pods {
		if fromRequests := p.Pod == "kube-system/aws-node-nkh5h"; p.UsageFromRequests != fromRequests {
			t.Errorf("%s: usage from requests %v", p.Pod, p.UsageFromRequests)
		}
	}
	if doc.Pods[0].Pod != "batch/nightly-report-29391840-9dh8m" || doc.Pods[0].Usage != "310Mi" {
		t.Errorf("first %+v", doc.Pods[0])
	}
}

// Every pod shows the oom_score_adj of each container: -997 for Guaranteed
// and node-critical pods, 1000 for BestEffort, and for Burstable pods
// 1000 minus the container's share of the node's memory, per mille.
func TestPressureOOMScoreAdj(t *testing.T) {
	doc := runPressure(t, "worker-a2", "--signal", "memory.available=50Mi")
	for _, p := range doc.Pods {
		if len(p.OOMScoreAdj) != 1 {
			t.Fatalf("%s: %+v, want one container", p.Pod, p.OOMScoreAdj)
		}
		adj := p.OOMScoreAdj[0].OOMScoreAdj
		switch {
		case p.QOS == "Guaranteed" || strings.HasPrefix(p.Pod, "kube-system/"):
			if adj != -997 {
				t.Errorf("%s (%s): %d, want -997", p.Pod, p.QOS, adj)
			}
		case p.QOS == "BestEffort":
			if adj != 1000 {
				t.Errorf("%s: %d, want 1000", p.Pod, adj)
			}
		case adj <= 2 || adj >= 1000:
			t.Errorf("%s (Burstable): %d, want between 3 and 999", p.Pod, adj)
		}
	}
}

// 200Mi meets no default threshold: nothing is evicted and the order shown
// is hypothetical; with usage = requests nobody exceeds, so priority rules.
func TestPressureNoThresholdMet(t *testing.T) {
	doc := runPressure(t, "worker-a2", "--signal", "memory.available=200Mi")
	if doc.Reclaim != nil || !doc.Hypothetical {
		t.Fatalf("reclaim %+v hypothetical %v", doc.Reclaim, doc.Hypothetical)
	}
	for _, th := range doc.Thresholds {
		if th.Met {
			t.Errorf("%s met", th.Threshold)
		}
	}
	if got := podOrder(doc); got[0] != "batch/nightly-report-29391840-9dh8m" || got[len(got)-3] != "shop/checkout-5d8f8301a-nlpfr" {
		t.Errorf("order %q: want the priority -100 job first and the priority 100000 checkout last of the evictable", got)
	}
	for _, p := range doc.Pods {
		if !p.UsageFromRequests || p.Needed {
			t.Errorf("%+v", p)
		}
	}
}

// A node already not ready in the snapshot (here read from a stream of JSON
// documents) counts as not ready in its zone and, as upstream's controller
// does, is queued for its NoExecute taint in the first pass (its zone is
// fully disrupted while another is up, so it keeps the normal rate and its
// token is there): its pods go after their tolerationSeconds, with a note.
func TestNodeDownWithNodeAlreadyDown(t *testing.T) {
	s, err := readSnapshot(strings.NewReader(readTestdata(t, "kind-cluster.yaml")), "kind")
	if err != nil {
		t.Fatal(err)
	}
	var stream strings.Builder
	emit := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		stream.WriteString("---\n" + string(b) + "\n")
	}
	for _, n := range s.Nodes {
		if n.Name == "kind-worker2" {
			readyCondition(n).Status = "Unknown"
		}
		emit(n)
	}
	for _, p := range s.Pods {
		emit(p)
	}
	tl := runTimeline(t, stream.String(), "-f", "-", "node-down", "kind-worker")
	if got := tl.after(kindZone); got["local-b"] != 0 || got["local-a"] != 55 {
		t.Errorf("zone events %v, want local-b fully disrupted from t0 and local-a at 55s", got)
	}
	if got := tl.after(kindEvicted); len(got) != 5 || got["default/redis-0"] != 30 || got["default/web-6f7d9c8b5-r5n3x"] != 300 {
		t.Errorf("evictions %v, want kind-worker's three and kind-worker2's two (30s and 300s after t0)", got)
	}
	tainted := false
	for _, e := range tl.Events {
		if e.Node == "kind-worker2" && e.Kind == kindTainted {
			tainted = e.Detail == "tainted unreachable:NoExecute" && *e.AfterSeconds == 0
		}
	}
	if !tainted {
		t.Errorf("kind-worker2 not tainted unreachable:NoExecute at t0: %+v", tl.Events)
	}
	if len(tl.Notes) != 1 || !strings.Contains(tl.Notes[0], "kind-worker2 is already not ready") {
		t.Errorf("notes %q", tl.Notes)
	}
}
