package main

import (
	"bytes"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/evictkit/eviction/examples/internal/golden"
	"github.com/evictkit/eviction/examples/whatif/internal/gensnap"
	"github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/taints"
	"github.com/evictkit/eviction/tolerations"
)

func embedded(t *testing.T) *snapshot {
	t.Helper()
	s, err := readSnapshot(bytes.NewReader(embeddedSnapshot), "embedded snapshot")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A silent node is marked Unknown by the controller's own health judgement
// at the first pass strictly after the pass that last heard from it (t0)
// plus the grace period: t0+55s with the defaults (5s period, 50s grace),
// not t0+50s. Its pods are marked NotReady in the same pass, and its zone
// queues it for unreachable:NoExecute at once.
func TestSilentNodeMarkedUnknownAfterGrace(t *testing.T) {
	s := embedded(t)
	t0 := s.t0()
	m := newSim(s, t0, nodelifecycle.Config{})
	m.silence("worker-a2")
	m.run()
	if got, want := m.unknownAt["worker-a2"], t0.Add(55*time.Second); !got.Equal(want) {
		t.Fatalf("Unknown at t0+%v, want t0+%v", got.Sub(t0), want.Sub(t0))
	}
	if len(m.unknownAt) != 1 {
		t.Errorf("nodes marked Unknown: %v, want only the silent one", m.unknownAt)
	}
	n := m.byName["worker-a2"]
	if r := readyCondition(n); r == nil || r.Status != corev1.ConditionUnknown || r.Reason != nodelifecycle.ReasonStatusUnknown {
		t.Errorf("Ready after the run: %+v", r)
	}
	if got := m.taintedAt["worker-a2"]; !got.Equal(t0.Add(55 * time.Second)) {
		t.Errorf("NoExecute taint at t0+%v, want in the marking pass (a quiet Normal zone has a token)", got.Sub(t0))
	}
}

// The simulation never touches the snapshot it was given: not the nodes it
// marks Unknown and taints, not the pods it marks NotReady and evicts.
func TestSimDoesNotModifySnapshot(t *testing.T) {
	s := embedded(t)
	before := embedded(t)
	m := newSim(s, s.t0(), nodelifecycle.Config{})
	for _, n := range []string{"worker-a1", "worker-a2", "worker-a3", "worker-a4"} {
		m.silence(n)
	}
	m.start = func() {
		m.applyTaint("worker-b4", corev1.Taint{Key: "dedicated", Value: "ml", Effect: corev1.TaintEffectNoExecute})
	}
	m.run()
	if len(m.taintedAt) == 0 || !slices.ContainsFunc(m.events, func(e event) bool { return e.Kind == kindEvicted }) {
		t.Fatal("the simulation tainted or evicted nothing: the test proves nothing")
	}
	if !reflect.DeepEqual(s, before) {
		t.Error("the snapshot changed")
	}
}

// With negative tolerationSeconds for two NoExecute taints, both count as 0
// and the first taint in the node's list decides: the report names the taint
// the library names (tolerations.Decision.DecidingTaint), not the one whose
// raw seconds are the smallest.
func TestEvictReasonNamesTheLibrarysDecidingTaint(t *testing.T) {
	s := embedded(t)
	node := s.byName["worker-c1"]
	a := corev1.Taint{Key: "example.com/a", Value: "1", Effect: corev1.TaintEffectNoExecute}
	b := corev1.Taint{Key: "example.com/b", Value: "2", Effect: corev1.TaintEffectNoExecute}
	node.Spec.Taints = append(node.Spec.Taints, a)
	pod := s.onNode[node.Name][0]
	seconds := map[string]int64{a.Key: -5, b.Key: -3}
	pod.Spec.Tolerations = nil
	for _, key := range []string{a.Key, b.Key} {
		s := seconds[key]
		pod.Spec.Tolerations = append(pod.Spec.Tolerations,
			corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &s})
	}
	m := newSim(s, s.t0(), nodelifecycle.Config{})
	m.start = func() { m.applyTaint(node.Name, b) } // kubectl taint puts b first
	m.run()

	list := m.byName[node.Name].Spec.Taints
	d := tolerations.NoExecuteDecision(list, pod.Spec.Tolerations, tolerations.Options{})
	deciding, ok := d.DecidingTaint(list)
	if !ok || d.Kind != tolerations.EvictAfter || d.Delay != 0 {
		t.Fatalf("library: %v deciding %v %v, want evict after 0s and a deciding taint", d, deciding, ok)
	}
	noExec := taints.OnlyNoExecute(list)
	if len(noExec) != 2 || deciding.Key != noExec[0].Key || seconds[noExec[0].Key] != -3 {
		t.Fatalf("NoExecute taints %v, deciding %v: want the first, with the larger raw seconds", noExec, deciding)
	}
	var got []string
	for _, e := range m.events {
		if e.Kind == kindEvicted && e.Pod == podKey(pod) {
			got = append(got, e.Detail)
		}
	}
	want := "evicted: tolerates " + taintKey(deciding) + " 0s"
	if len(got) != 1 || got[0] != want {
		t.Errorf("eviction reasons of %s: %q, want [%q]", podKey(pod), got, want)
	}
}

func TestSortEvents(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	events := []event{
		{Kind: kindStays, Pod: "b/x"},
		{At: t0.Add(time.Minute), Kind: kindEvicted, Pod: "a/y"},
		{Kind: kindNotTainted, Node: "n1"},
		{At: t0, Kind: kindTainted, Node: "n2"},
		{At: t0, Kind: kindUnknown, Node: "n1"}, // same instant: happened after the taint
		{Kind: kindStays, Pod: "a/x"},
	}
	sortEvents(events)
	var got []string
	for _, e := range events {
		got = append(got, e.Kind+" "+e.object())
	}
	want := []string{
		"tainted node/n2", "node-unknown node/n1", "evicted a/y",
		"stays a/x", "stays b/x", "never-tainted node/n1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestZoneName(t *testing.T) {
	for key, want := range map[string]string{
		"us-east-1:\x00:us-east-1a": "us-east-1a",
		"us-east-1:\x00:":           "us-east-1",
		":\x00:zone":                "zone",
		"":                          "(no zone label)",
	} {
		if got := zoneName(key); got != want {
			t.Errorf("zoneName(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestWrapAndOneLine(t *testing.T) {
	long := "word "
	for range 60 {
		long += "word "
	}
	for _, l := range wrap(long) {
		if len(l) > wrapWidth {
			t.Errorf("line of %d columns", len(l))
		}
	}
	if got := wrap(""); got != nil {
		t.Errorf("wrap(\"\") = %q", got)
	}
	if got := oneLine("a\nb\r\n  c\t"); got != "a; b; c" {
		t.Errorf("oneLine = %q", got)
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{formatOffset(55 * time.Second), "+55s"},
		{formatOffset(15*time.Minute + 55*time.Second), "+15m55s"},
		{formatSeconds(300 * time.Second), "300s"},
		{formatSeconds(1500 * time.Millisecond), "1.5s"},
		{formatRate(0.1), "0.1"},
		{formatRate(0.01), "0.01"},
		{byteString(8 << 30), "8Gi"},
		{byteString(1536 << 20), "1536Mi"},
		{byteString(1000), "1000"},
		{display(*resource.NewQuantity(1536<<20, resource.BinarySI)), "1536Mi"},
		{display(*resource.NewQuantity(1500e6, resource.BinarySI)), "1.4Gi"},
		{display(*resource.NewQuantity(-1500e6, resource.BinarySI)), "-1.4Gi"},
		{display(*resource.NewQuantity(1000, resource.BinarySI)), "1000"},
		{display(*resource.NewQuantity(0, resource.BinarySI)), "0"},
		{display(resource.MustParse("2k")), "2k"}, // not binary: as it is
		{joinMax([]string{"a", "b"}, 2), "a, b"},
		{joinMax([]string{"a", "b", "c"}, 2), "a, b and 1 more"},
		{milliString(3500), "3500m"},
		{milliString(3000), "3"},
		{plural(1, "pod"), "1 pod"},
		{plural(2, "pod"), "2 pods"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// The gpu node's training pods tolerate unreachable:NoExecute for 3600 s:
// each is evicted exactly that long after the taint, which comes in the
// marking pass because one silent node of four leaves its zone Normal (its
// bucket is full); the DaemonSets tolerate the taint forever and stay.
func TestRuleNodeDownGPUTolerationSeconds(t *testing.T) {
	tl := runTimeline(t, "", "node-down", "worker-b4")
	if got := tl.after(kindTainted)["worker-b4"]; got != 55 {
		t.Errorf("worker-b4 tainted after %vs, want 55 (the marking pass)", got)
	}
	zone := ""
	for _, e := range tl.Events {
		if e.Kind == kindZone {
			zone = e.Detail
		}
	}
	if !strings.HasPrefix(zone, "still Normal (1/4 not ready)") {
		t.Errorf("zone event %q, want the zone still Normal", zone)
	}
	evicted := tl.after(kindEvicted)
	if len(evicted) != 2 || evicted["ml/trainer-llm-ft-9qjv6"] != 55+3600 || evicted["ml/trainer-llm-ft-llkgl"] != 55+3600 {
		t.Errorf("evictions %v, want the two trainers at t0+55s+3600s", evicted)
	}
	for _, pod := range []string{"kube-system/aws-node-kngll", "kube-system/kube-proxy-4tcqg", "monitoring/node-exporter-gvgfb"} {
		if got, ok := tl.after(kindStays)[pod]; !ok || got != -1 {
			t.Errorf("%s: stays %v %v, want never evicted", pod, got, ok)
		}
	}
}

// A NoSchedule taint with a key the node lifecycle controller manages
// (memory-pressure), on a node whose conditions do not call for it, is
// removed by the controller's NoSchedule pass on that very node update; a
// NoSchedule taint evicts nothing.
func TestRuleManagedTaintRemovedAtOnce(t *testing.T) {
	tl := runTimeline(t, "", "taint", "worker-c1", "node.kubernetes.io/memory-pressure:NoSchedule")
	var kinds []string
	for _, e := range tl.Events {
		if e.AfterSeconds == nil || *e.AfterSeconds != 0 || e.Node != "worker-c1" {
			t.Errorf("unexpected event %+v", e)
		}
		kinds = append(kinds, e.Kind)
	}
	if want := []string{kindTainted, kindTaintRemoved, kindNothingEvicted}; !slices.Equal(kinds, want) {
		t.Errorf("events %q, want %q", kinds, want)
	}
	if removed := tl.Events[1].Detail; removed != "untainted memory-pressure:NoSchedule (node lifecycle controller)" {
		t.Errorf("removal %q", removed)
	}
	// A taint the controller does not manage stays.
	tl = runTimeline(t, "", "taint", "worker-c1", "team=payments:NoSchedule")
	if got := tl.after(kindTaintRemoved); len(got) != 0 {
		t.Errorf("an unmanaged taint was removed: %v", got)
	}
}

// The kind control plane has no zone label: it is the only node of the
// zone "", which its silence takes to FullDisruption (1/1); the other zones
// are up, so the zone keeps the normal rate and the node is tainted in the
// marking pass. Its static pods and DaemonSets stay; the others go after
// the default 300 s toleration.
func TestRuleControlPlaneDownFullZoneKeepsRate(t *testing.T) {
	tl := runTimeline(t, "", "-f", "testdata/kind-cluster.yaml", "node-down", "kind-control-plane")
	var zone string
	for _, e := range tl.Events {
		if e.Kind == kindZone {
			zone = e.Zone + ": " + e.Detail
		}
		if e.Kind == kindMasterDisruption {
			t.Errorf("not every zone is down: %+v", e)
		}
	}
	if zone != "(no zone label): FullDisruption (1/1 not ready): 0.1 nodes/s" {
		t.Errorf("zone event %q", zone)
	}
	if got := tl.after(kindTainted)["kind-control-plane"]; got != 55 {
		t.Errorf("tainted after %vs, want 55", got)
	}
	evicted := tl.after(kindEvicted)
	if len(evicted) != 3 {
		t.Errorf("evictions %v, want 3", evicted)
	}
	for pod, at := range evicted {
		if at != 55+300 {
			t.Errorf("%s evicted after %vs, want the default toleration 55+300", pod, at)
		}
	}
	for _, e := range tl.Events {
		if e.Kind == kindStays && !strings.HasPrefix(e.Detail, "stays: static pod") && !strings.HasPrefix(e.Detail, "stays: DaemonSet") {
			t.Errorf("%s stays for another reason: %s", e.Pod, e.Detail)
		}
	}
}

// Skipping the tainting passes while every token bucket is empty gives the
// timeline that a pass every 100 ms gives: for a whole zone down (tainted at
// the eviction rate), most of a large zone (partial disruption: the
// secondary rate), a zone and some of another, and a few nodes.
func TestSimSkippingIdleTaintPassesKeepsTheTimeline(t *testing.T) {
	c := gensnap.Config{Nodes: 180, Zones: 3, PodsPerNode: 2, Format: gensnap.JSON}
	s := generated(t, c)
	zoneA, zoneB := gensnap.ZoneNodes(c, 0), gensnap.ZoneNodes(c, 1)
	cases := map[string][]string{
		"a whole zone":               zoneA,
		"most of a large zone":       zoneA[:40],
		"a few nodes of every zone":  {zoneA[3], zoneB[4], gensnap.ZoneNodes(c, 2)[5]},
		"a whole zone and some more": append(slices.Clone(zoneB), zoneA[:10]...),
		"eight nodes of a zone":      zoneB[:8],
	}
	for name, nodes := range cases {
		t.Run(name, func(t *testing.T) {
			if name == "most of a large zone" && raceDetector {
				t.Skip("minutes under the race detector")
			}
			sim := func(everyTick bool) *sim {
				m := newSim(s, s.t0(), nodelifecycle.Config{})
				m.everyTick = everyTick
				for _, n := range nodes {
					if m.byName[n] != nil {
						m.silence(n)
					}
				}
				m.run()
				return m
			}
			want, got := sim(true), sim(false)
			if len(got.taintedAt) == 0 {
				t.Fatal("nothing tainted: the case tests nothing")
			}
			if !reflect.DeepEqual(got.events, want.events) || !slices.Equal(got.notes, want.notes) {
				t.Errorf("timeline with skipping differs from the one polling every 100 ms:\ngot  %d events, %d notes\nwant %d events, %d notes",
					len(got.events), len(got.notes), len(want.events), len(want.notes))
			}
		})
	}
}

// generated decodes a generated snapshot.
func generated(t *testing.T, c gensnap.Config) *snapshot {
	t.Helper()
	var b bytes.Buffer
	if err := gensnap.Write(&b, c); err != nil {
		t.Fatal(err)
	}
	s, err := readSnapshot(&b, "generated snapshot")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Skipping the monitor passes that would repeat the last one (and the idle
// tainting passes) gives, byte for byte, the report of a monitor pass every
// 5 s and a tainting pass every 100 ms: one node, a whole zone, several
// zones, every zone, most of a large zone (the secondary rate) and of a
// small one (no tainting), nodes already not ready, already Unknown, or
// without a Ready condition and within their startup grace (which runs out
// before the others' grace period), on generated clusters and on the small
// snapshots of the golden files, with the default settings and with shorter
// periods and other eviction rates.
func TestSimSkippingRepeatedMonitorPassesKeepsTheReport(t *testing.T) {
	large := gensnap.Config{Nodes: 180, Zones: 3, PodsPerNode: 2}
	ls := generated(t, large)
	t0 := ls.t0()
	// Node 7 (zone b) has no Ready condition yet and was created 30 s before
	// t0; node 10 (zone b) is already Unknown. Node 151 (zone b) and node
	// 51 (zone a) are NotReady in every generated snapshot.
	noReady, unknown := gensnap.NodeName(7, 3), gensnap.NodeName(10, 3)
	for _, n := range ls.Nodes {
		switch n.Name {
		case noReady:
			n.CreationTimestamp.Time = t0.Add(-30 * time.Second)
			n.Status.Conditions = slices.DeleteFunc(n.Status.Conditions, func(c corev1.NodeCondition) bool {
				return c.Type == corev1.NodeReady
			})
		case unknown:
			r := readyCondition(n)
			r.Status, r.Reason = corev1.ConditionUnknown, nodelifecycle.ReasonStatusUnknown
		}
	}
	if ls.t0() != t0 {
		t.Fatal("the edited nodes moved t0")
	}
	la, lb, lc := gensnap.ZoneNodes(large, 0), gensnap.ZoneNodes(large, 1), gensnap.ZoneNodes(large, 2)
	small := gensnap.Config{Nodes: 24, Zones: 3, PodsPerNode: 2}
	ss := generated(t, small)
	sa, sb := gensnap.ZoneNodes(small, 0), gensnap.ZoneNodes(small, 1)
	kind, err := os.Open("testdata/kind-cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ks, err := readSnapshot(kind, "kind")
	kind.Close()
	if err != nil {
		t.Fatal(err)
	}
	es := embedded(t)
	// The cases left out under the race detector, where they take minutes.
	long := map[string]bool{"two whole zones": true, "most of a large zone": true, "a whole zone and some of another": true}

	for _, tc := range []struct {
		name  string
		s     *snapshot
		nodes []string
		kcm   settings
	}{
		{"one node", ls, lb[2:3], settings{}},
		{"a whole zone", ls, lb, settings{}},
		{"two whole zones", ls, append(slices.Clone(la), lb...), settings{}},
		{"every zone", ls, append(append(slices.Clone(la), lb...), lc...), settings{}},
		{"most of a large zone", ls, la[:40], settings{}},
		{"a whole zone and some of another", ls, append(slices.Clone(lc), la[:10]...), settings{}},
		{"nodes not ready, Unknown, without Ready", ls, []string{gensnap.NodeName(51, 3), unknown, noReady}, settings{}},
		{"the node without Ready and a few others", ls, []string{noReady, lc[3], la[4]}, settings{}},
		{"a small cluster: one node", ss, sa[:1], settings{}},
		{"a small cluster: most of a zone", ss, sa[:5], settings{}},
		{"a small cluster: a whole zone", ss, sb, settings{}},
		{"embedded: most of a zone", es, []string{"worker-a1", "worker-a2", "worker-a3"}, settings{}},
		{"embedded: a whole zone", es, []string{"worker-a1", "worker-a2", "worker-a3", "worker-a4"}, settings{}},
		{"embedded: every zone", es, []string{"worker-a1", "worker-a2", "worker-a3", "worker-a4",
			"worker-b1", "worker-b2", "worker-b3", "worker-b4", "worker-c1", "worker-c2", "worker-c3", "kind-control-plane"}, settings{}},
		{"kind: the control plane", ks, []string{"kind-control-plane"}, settings{}},
		{"kind: a worker", ks, []string{"kind-worker"}, settings{}},
		{"short periods: a whole zone", ls, lb, settings{cfg: nodelifecycle.Config{
			MonitorPeriod: time.Second, MonitorGracePeriod: 4 * time.Second, StartupGracePeriod: 10 * time.Second}}},
		{"short periods: nodes not ready, Unknown, without Ready", ls, []string{gensnap.NodeName(51, 3), unknown, noReady, lc[3]},
			settings{cfg: nodelifecycle.Config{MonitorPeriod: 2 * time.Second, MonitorGracePeriod: 7 * time.Second, StartupGracePeriod: 45 * time.Second}}},
		{"eviction rate 0: a whole zone", ls, lb, settings{cfg: nodelifecycle.Config{StopEviction: true}}},
		{"eviction rate 1: two whole zones", ls, append(slices.Clone(la), lb...), settings{cfg: nodelifecycle.Config{EvictionRate: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if long[tc.name] && raceDetector {
				t.Skip("minutes under the race detector")
			}
			var nodes []string
			for _, n := range tc.nodes {
				if tc.s.byName[n] != nil {
					nodes = append(nodes, n)
				}
			}
			render := func(skip bool) (table, js string, passes int) {
				r, err := nodeDownTuned(tc.s.clone(), "snapshot", tc.kcm, nodes, false, func(m *sim) {
					m.everyPass, m.everyTick = !skip, !skip
				})
				if err != nil {
					t.Fatal(err)
				}
				var tb, jb bytes.Buffer
				if err := r.writeTable(&tb); err != nil {
					t.Fatal(err)
				}
				if err := writeJSON(&jb, r.jsonValue()); err != nil {
					t.Fatal(err)
				}
				return tb.String(), jb.String(), r.(*timelineReport).m.passes
			}
			wantTable, wantJSON, every := render(false)
			gotTable, gotJSON, skipped := render(true)
			if !strings.Contains(wantTable, "tainted") {
				t.Fatalf("nothing tainted: the case tests nothing\n%s", wantTable)
			}
			if gotTable != wantTable {
				t.Errorf("table with skipping differs:\n%s", golden.FirstDiff(wantTable, gotTable))
			}
			if gotJSON != wantJSON {
				t.Errorf("JSON with skipping differs:\n%s", golden.FirstDiff(wantJSON, gotJSON))
			}
			t.Logf("%d monitor passes, %d without skipping", skipped, every)
		})
	}
}
