package v126

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	nl "github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/nodelifecycle/legacy"
	"github.com/evictkit/eviction/timedqueue"
)

// The JSON the helper program reads and writes (upstream/main.go declares the same).
type scenario struct {
	Start                  time.Time
	PodEvictionTimeout     time.Duration
	MonitorGracePeriod     time.Duration
	StartupGracePeriod     time.Duration
	MonitorPeriod          time.Duration
	EvictionQPS            float32
	SecondaryQPS           float32
	LargeClusterThreshold  int32
	UnhealthyZoneThreshold float32
	Nodes                  []scNode
	Pods                   []scPod
	Steps                  []step
}

type scNode struct{ Name, Zone string }

type scPod struct {
	Name, Node string
	DaemonSet  bool
}

type step struct {
	At           time.Duration
	Kind         string
	Node, Status string
}

type observation struct {
	Step      int
	Deleted   []string
	Events    []string
	Zones     map[string]string
	Rates     map[string]float32
	Queued    map[string][]string
	Processed map[string][]string
	Ready     map[string]string
	Ties      bool
}

type trace struct {
	Observations []observation
	Error        string
}

const dsLabel = "evictkit-ds"

// helper is the upstream program, started once and fed one scenario at a time.
type helper struct {
	mu  sync.Mutex
	in  io.WriteCloser
	out *bufio.Scanner
	cmd *exec.Cmd
}

var (
	upstreamOnce sync.Once
	upstream     *helper
	upstreamErr  error
)

func startHelper(t testing.TB) *helper {
	t.Helper()
	upstreamOnce.Do(func() {
		bin := os.Getenv("EVICTKIT_UPSTREAM126")
		if bin == "" {
			upstreamErr = fmt.Errorf("EVICTKIT_UPSTREAM126 is not set: run scripts/conformance-v126, which builds the v1.26.15 helper")
			return
		}
		cmd := exec.Command(bin)
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			upstreamErr = err
			return
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			upstreamErr = err
			return
		}
		if err := cmd.Start(); err != nil {
			upstreamErr = fmt.Errorf("start %s: %w", bin, err)
			return
		}
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		upstream = &helper{in: in, out: sc, cmd: cmd}
	})
	if upstreamErr != nil {
		t.Fatal(upstreamErr)
	}
	return upstream
}

// fataler is what run needs of a test: *testing.T or *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

func (h *helper) run(t fataler, sc scenario) trace {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.in.Write(append(b, '\n')); err != nil {
		t.Fatalf("upstream helper: %v", err)
	}
	if !h.out.Scan() {
		t.Fatalf("upstream helper: no answer: %v", h.out.Err())
	}
	var tr trace
	if err := json.Unmarshal(h.out.Bytes(), &tr); err != nil {
		t.Fatalf("upstream helper answer: %v", err)
	}
	if tr.Error != "" {
		t.Fatalf("upstream helper: %s", tr.Error)
	}
	return tr
}

func TestMain(m *testing.M) {
	code := m.Run()
	if upstream != nil {
		_ = upstream.in.Close()
		_ = upstream.cmd.Wait()
	}
	os.Exit(code)
}

// cluster is the library side: v1.26's monitor pass with the taint manager off and its
// eviction pass, built from packages nodelifecycle, nodelifecycle/legacy and timedqueue on the
// scenario's time.
type cluster struct {
	cfg  nl.Config
	lcfg legacy.Config

	nodes  map[string]*v1.Node
	leases map[string]*coordinationv1.Lease
	pods   map[string]*v1.Pod
	ds     legacy.DaemonSets

	probes    map[string]*nl.Probe
	known     map[string]bool
	zones     map[string]nl.ZoneState
	queues    map[string]*timedqueue.RateLimited[string]
	evictions map[string]legacy.EvictionState
	deleted   []string
	events    []string
}

func newCluster(sc scenario) *cluster {
	cfg := legacy.NodeConfig126()
	cfg.MonitorPeriod, cfg.MonitorGracePeriod, cfg.StartupGracePeriod = sc.MonitorPeriod, sc.MonitorGracePeriod, sc.StartupGracePeriod
	cfg.EvictionRate, cfg.SecondaryEvictionRate = sc.EvictionQPS, sc.SecondaryQPS
	cfg.LargeClusterThreshold, cfg.UnhealthyZoneThreshold = sc.LargeClusterThreshold, sc.UnhealthyZoneThreshold
	c := &cluster{
		cfg: cfg, lcfg: legacy.Config{PodEvictionTimeout: sc.PodEvictionTimeout},
		nodes: map[string]*v1.Node{}, leases: map[string]*coordinationv1.Lease{}, pods: map[string]*v1.Pod{},
		probes: map[string]*nl.Probe{}, known: map[string]bool{}, zones: map[string]nl.ZoneState{},
		queues: map[string]*timedqueue.RateLimited[string]{}, evictions: map[string]legacy.EvictionState{},
	}
	c.ds = legacy.NewDaemonSets([]*appsv1.DaemonSet{{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "ds"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{dsLabel: "yes"}}}}})
	start := metav1.NewTime(sc.Start)
	for _, n := range sc.Nodes {
		c.nodes[n.Name] = &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: types.UID("uid-" + n.Name), CreationTimestamp: start,
				Labels: map[string]string{v1.LabelTopologyZone: n.Zone}},
			Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue,
				LastHeartbeatTime: start, LastTransitionTime: start}}},
		}
		c.renew(n.Name, sc.Start)
	}
	for _, p := range sc.Pods {
		pod := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: p.Name, Labels: map[string]string{"app": p.Name}},
			Spec:       v1.PodSpec{NodeName: p.Node},
			Status:     v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}},
		}
		if p.DaemonSet {
			pod.Labels[dsLabel] = "yes"
		}
		c.pods[p.Name] = pod
	}
	return c
}

func findReady(n *v1.Node) *v1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == v1.NodeReady {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

func (c *cluster) renew(name string, now time.Time) {
	m := metav1.NewMicroTime(now)
	c.leases[name] = &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: v1.NamespaceNodeLease, ResourceVersion: now.Format("150405.000000000")},
		Spec:       coordinationv1.LeaseSpec{RenewTime: &m},
	}
}

// post is the kubelet reporting Ready=s with a heartbeat at now and renewing its Lease.
func (c *cluster) post(name string, s v1.ConditionStatus, now time.Time) {
	n := c.nodes[name].DeepCopy()
	r := findReady(n)
	if r.Status != s {
		r.LastTransitionTime = metav1.NewTime(now)
	}
	r.Status, r.LastHeartbeatTime, r.Reason, r.Message = s, metav1.NewTime(now), "", ""
	c.nodes[name] = n
	c.renew(name, now)
}

func (c *cluster) zoneOf(name string) string { return nl.ZoneKey(c.nodes[name]) }

func (c *cluster) podsOn(name string) []*v1.Pod {
	var out []*v1.Pod
	for _, k := range slices.Sorted(maps.Keys(c.pods)) {
		if c.pods[k].Spec.NodeName == name {
			out = append(out, c.pods[k])
		}
	}
	return out
}

func (c *cluster) cancel(name string) {
	c.evictions[name], _ = c.evictions[name].Next(legacy.EvictionCancel)
	c.queues[c.zoneOf(name)].Remove(name)
}

func (c *cluster) deletePods(pods []*v1.Pod, node string) {
	if len(pods) > 0 {
		c.events = append(c.events, fmt.Sprintf("node/%s Normal DeletingAllPods Node %s event: Deleting all Pods from Node %s.", node, node, node))
	}
	for _, d := range legacy.PlanPodDeletion(pods, node, c.ds) {
		if d.NodeLost != nil {
			c.pods[d.Pod.Name] = d.NodeLost
		}
		if d.Fate == legacy.PodDelete {
			c.events = append(c.events, fmt.Sprintf("pod/%s/%s Normal NodeControllerEviction Marking for deletion Pod %s from Node %s",
				d.Pod.Namespace, d.Pod.Name, d.Pod.Name, node))
			delete(c.pods, d.Pod.Name)
			c.deleted = append(c.deleted, d.Pod.Name)
		}
	}
}

// pass is one monitor pass at now.
func (c *cluster) pass(now time.Time) {
	names := slices.Sorted(maps.Keys(c.nodes))
	for _, name := range names {
		if z := c.zoneOf(name); c.zones[z] == "" {
			c.zones[z] = nl.ZoneInitial
			c.queues[z] = timedqueue.NewRateLimited[string](c.cfg.Effective().EvictionRate)
		}
		if !c.known[name] {
			c.known[name] = true
			c.cancel(name)
		}
	}
	counts := map[string]nl.ZoneCounts{}
	for _, name := range names {
		h := nl.Evaluate(c.nodes[name], c.leases[name], c.probes[name], now, c.cfg)
		if h.Status != nil {
			n := c.nodes[name].DeepCopy()
			n.Status = *h.Status
			c.nodes[name] = n
		}
		p := h.Saved()
		c.probes[name] = &p
		z := c.zoneOf(name)
		cnt := counts[z]
		cnt.Add(h.Current)
		counts[z] = cnt
		if h.Current == nil {
			continue
		}
		e, err := legacy.Decide(h.Observed.Status, c.probes[name], now, c.lcfg)
		if err != nil {
			panic(err)
		}
		var op legacy.EvictionOp
		c.evictions[name], op = c.evictions[name].Next(e)
		switch op {
		case legacy.OpEnqueue:
			c.queues[z].Add(now, name, string(c.nodes[name].UID))
		case legacy.OpDequeue:
			c.queues[z].Remove(name)
		case legacy.OpDeleteNow:
			c.deletePods(c.podsOn(name), name)
		}
		if h.BecameNotReady() {
			for _, pod := range c.podsOn(name) {
				if np, ok := nl.MarkPodNotReady(pod, name, now); ok {
					c.pods[pod.Name] = np
				}
			}
		}
	}
	d := nl.HandleDisruption(c.zones, counts, c.cfg)
	if d.Entered {
		for _, name := range names {
			c.cancel(name)
		}
	}
	if d.Exited {
		for _, name := range names {
			p := nl.ResetProbe(c.probes[name], now)
			c.probes[name] = &p
		}
	}
	for _, z := range slices.Sorted(maps.Keys(d.Rates)) {
		c.queues[z].SetRate(now, d.Rates[z])
	}
	c.zones = d.States
}

// evict is one eviction pass at now.
func (c *cluster) evict(now time.Time) {
	for _, z := range slices.Sorted(maps.Keys(c.queues)) {
		c.queues[z].Try(now, func(v timedqueue.TimedValue[string]) (bool, time.Duration) {
			c.deletePods(c.podsOn(v.Value), v.Value)
			if _, ok := c.nodes[v.Value]; ok {
				c.evictions[v.Value] = legacy.Evicted
			}
			return true, 0
		})
	}
}

func (c *cluster) observe(step int) observation {
	o := observation{Step: step, Zones: map[string]string{}, Rates: map[string]float32{},
		Queued: map[string][]string{}, Processed: map[string][]string{}, Ready: map[string]string{}}
	o.Deleted = slices.Sorted(slices.Values(c.deleted))
	o.Events = slices.Sorted(slices.Values(c.events))
	c.deleted, c.events = nil, nil
	for z, s := range c.zones {
		o.Zones[z] = string(s)
	}
	for z, q := range c.queues {
		o.Rates[z] = q.QPS()
		for _, name := range slices.Sorted(maps.Keys(c.nodes)) {
			if c.zoneOf(name) != z {
				continue
			}
			if _, ok := q.Get(name); ok {
				o.Queued[z] = append(o.Queued[z], name)
			} else if q.Has(name) {
				o.Processed[z] = append(o.Processed[z], name)
			}
		}
	}
	for name, n := range c.nodes {
		if r := findReady(n); r != nil {
			o.Ready[name] = string(r.Status)
		}
	}
	return o
}

func (c *cluster) run(sc scenario) []observation {
	var out []observation
	for i, st := range sc.Steps {
		now := sc.Start.Add(st.At)
		switch st.Kind {
		case "post":
			c.post(st.Node, v1.ConditionStatus(st.Status), now)
		case "pass":
			c.pass(now)
			out = append(out, c.observe(i))
		case "evict":
			c.evict(now)
			out = append(out, c.observe(i))
		}
	}
	return out
}

// genScenario draws a cluster of two to four zones of one to four nodes, a few pods per node
// (some DaemonSet pods), and a run of monitor passes every MonitorPeriod with an eviction pass
// after each, while each node's kubelet is healthy, reports not ready, or goes silent for a
// while, by turns. Zone outages (every node of a zone silent together) are drawn often.
func genScenario(t *rapid.T) scenario {
	sc := scenario{
		Start:                  time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC),
		PodEvictionTimeout:     rapid.SampledFrom([]time.Duration{30 * time.Second, time.Minute, 5 * time.Minute}).Draw(t, "timeout"),
		MonitorGracePeriod:     40 * time.Second,
		StartupGracePeriod:     rapid.SampledFrom([]time.Duration{10 * time.Second, time.Minute}).Draw(t, "startup"),
		MonitorPeriod:          5 * time.Second,
		EvictionQPS:            rapid.SampledFrom([]float32{0.1, 0.05, 0.5}).Draw(t, "qps"),
		SecondaryQPS:           rapid.SampledFrom([]float32{0.01, 0.02}).Draw(t, "secondary"),
		LargeClusterThreshold:  rapid.SampledFrom([]int32{3, 50}).Draw(t, "large"),
		UnhealthyZoneThreshold: rapid.SampledFrom([]float32{0.55, 0.3}).Draw(t, "unhealthy"),
	}
	zones := rapid.IntRange(2, 4).Draw(t, "zones")
	var names []string
	zoneNodes := map[int][]string{}
	for z := range zones {
		for i := range rapid.IntRange(1, 4).Draw(t, fmt.Sprintf("nodes%d", z)) {
			name := fmt.Sprintf("n%d%d", z, i)
			names = append(names, name)
			zoneNodes[z] = append(zoneNodes[z], name)
			sc.Nodes = append(sc.Nodes, scNode{Name: name, Zone: fmt.Sprintf("zone-%d", z)})
			for p := range rapid.IntRange(0, 3).Draw(t, "pods-"+name) {
				sc.Pods = append(sc.Pods, scPod{Name: fmt.Sprintf("p-%s-%d", name, p), Node: name,
					DaemonSet: rapid.IntRange(0, 4).Draw(t, "ds") == 0})
			}
		}
	}
	// behaviour[node] for the current stretch: 0 healthy, 1 posts False, 2 silent.
	behaviour := map[string]int{}
	passes := rapid.IntRange(20, 160).Draw(t, "passes")
	for p := range passes {
		at := time.Duration(p) * sc.MonitorPeriod
		if p%6 == 0 {
			if rapid.IntRange(0, 5).Draw(t, "outage") == 0 {
				z := rapid.IntRange(0, zones-1).Draw(t, "outage-zone")
				for _, n := range zoneNodes[z] {
					behaviour[n] = 2
				}
			}
			for _, n := range names {
				if rapid.IntRange(0, 3).Draw(t, "change") == 0 {
					behaviour[n] = rapid.IntRange(0, 2).Draw(t, "behaviour")
				}
			}
		}
		for _, n := range names {
			switch behaviour[n] {
			case 0:
				sc.Steps = append(sc.Steps, step{At: at, Kind: "post", Node: n, Status: "True"})
			case 1:
				sc.Steps = append(sc.Steps, step{At: at, Kind: "post", Node: n, Status: "False"})
			}
		}
		sc.Steps = append(sc.Steps, step{At: at, Kind: "pass"})
		sc.Steps = append(sc.Steps, step{At: at + rapid.SampledFrom([]time.Duration{0, time.Second, 3 * time.Second}).Draw(t, "evict-at"), Kind: "evict"})
	}
	return sc
}

// ends counts the sequences cut short by tied process times that the two queues broke
// differently.
var ends, steps, deletions int

// TestLegacyModeMatchesV126 runs random heartbeat sequences over several zones through
// v1.26.15's node lifecycle controller with the taint manager disabled and through the
// library, and requires after every monitor pass and every eviction pass the same pods
// deleted, the same NodeControllerEviction and DeletingAllPods events, the same zone states,
// eviction rates and queue contents, and the same Ready statuses.
//
// Upstream's queue is a heap: among nodes queued at the same instant in one zone, which one
// the next token takes depends on the heap's history; the library takes them in the order they
// were queued. When a pass over tied nodes tells them apart, the sequence ends there (counted).
func TestLegacyModeMatchesV126(t *testing.T) {
	h := startHelper(t)
	rapid.Check(t, func(rt *rapid.T) {
		sc := genScenario(rt)
		up := h.run(rt, sc)
		mine := newCluster(sc).run(sc)
		if len(up.Observations) != len(mine) {
			rt.Fatalf("upstream made %d observations, evictkit %d", len(up.Observations), len(mine))
		}
		for i := range mine {
			u, m := up.Observations[i], mine[i]
			steps++
			deletions += len(u.Deleted)
			if reflect.DeepEqual(norm(u), norm(m)) {
				continue
			}
			if u.Ties && sc.Steps[u.Step].Kind == "evict" && sameExceptOrder(u, m) {
				ends++
				rt.Logf("step %d: tied process times taken in another order: sequence ends", u.Step)
				return
			}
			rt.Fatalf("step %d (%s at %v) differs:\nupstream %+v\nevictkit %+v", u.Step, sc.Steps[u.Step].Kind, sc.Steps[u.Step].At, norm(u), norm(m))
		}
	})
	t.Logf("compared %d observations, %d pods deleted upstream; %d sequences ended at tied queue entries", steps, deletions, ends)
}

// sameExceptOrder: the two sides took the same number of nodes from each queue, maybe not the
// same ones.
func sameExceptOrder(u, m observation) bool {
	if !reflect.DeepEqual(u.Zones, m.Zones) || !reflect.DeepEqual(u.Rates, m.Rates) {
		return false
	}
	for z := range u.Queued {
		if len(u.Queued[z]) != len(m.Queued[z]) || len(u.Processed[z]) != len(m.Processed[z]) {
			return false
		}
	}
	return true
}

// norm makes nil and empty slices compare equal, drops empty queue lists, and drops Step and Ties.
func norm(o observation) observation {
	o.Step, o.Ties = 0, false
	if len(o.Deleted) == 0 {
		o.Deleted = nil
	}
	if len(o.Events) == 0 {
		o.Events = nil
	}
	for _, m := range []map[string][]string{o.Queued, o.Processed} {
		for k, v := range m {
			if len(v) == 0 {
				delete(m, k)
			}
		}
	}
	return o
}
