package conformance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/controller/nodelifecycle"
	nodescheduler "k8s.io/kubernetes/pkg/controller/nodelifecycle/scheduler"
	"k8s.io/kubernetes/pkg/features"
	testingclock "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/conformance/internal/gen"
	ours "github.com/evictkit/eviction/nodelifecycle"
)

// sortedNodeLister lists the node cache in name order, so that upstream's
// monitor pass (with one worker) takes the nodes in the order the library
// is given them.
type sortedNodeLister struct{ listersv1.NodeLister }

func (l sortedNodeLister) List(sel labels.Selector) ([]*v1.Node, error) {
	nodes, err := l.NodeLister.List(sel)
	slices.SortFunc(nodes, func(a, b *v1.Node) int { return strings.Compare(a.Name, b.Name) })
	return nodes, err
}

// upstreamMonitor is upstream's node lifecycle controller built by
// NewNodeLifecycleController on client and on informers that are never
// started: the test fills their stores. It judges one node at a time
// (workers = 1), lists nodes in name order, and reads the time from clock,
// its zone queues too.
type upstreamMonitor struct {
	nc                  *nodelifecycle.Controller
	nodes, pods, leases cache.Store
	client              *clientsetfake.Clientset
	lister              listersv1.NodeLister // the node cache's own lister, in map order
}

func newUpstreamMonitor(t tester, client *clientsetfake.Clientset, clock *testingclock.FakeClock, cfg ours.Config, workers int) *upstreamMonitor {
	t.Helper()
	factory := informers.NewSharedInformerFactory(client, 0)
	leases := factory.Coordination().V1().Leases()
	nodes := factory.Core().V1().Nodes()
	pods := factory.Core().V1().Pods()
	e, s := cfg.Effective(), settings(cfg)
	nc, err := nodelifecycle.NewNodeLifecycleController(context.Background(), leases, pods, nodes,
		factory.Apps().V1().DaemonSets(), client, e.MonitorPeriod, e.StartupGracePeriod, e.MonitorGracePeriod,
		s.evictionRate, s.secondaryEvictionRate, s.largeClusterThreshold, s.unhealthyZoneThreshold)
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return clock.Now() }
	nc.SetClock(func() metav1.Time { return metav1.NewTime(now()) })
	nc.SetNodeUpdateWorkers(workers)
	nc.SetNodeLister(sortedNodeLister{nodes.Lister()})
	restore := nodescheduler.SetNow(now)
	t.Cleanup(func() { restore(); nc.Stop() })
	return &upstreamMonitor{nc: nc, nodes: nodes.Informer().GetStore(), pods: pods.Informer().GetStore(),
		leases: leases.Informer().GetStore(), client: client, lister: nodes.Lister()}
}

// syncFrom makes the node and pod caches hold exactly what client holds.
func (u *upstreamMonitor) syncFrom(t tester) {
	ctx := context.Background()
	nodes, err := u.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	objs := make([]any, len(nodes.Items))
	for i := range nodes.Items {
		objs[i] = &nodes.Items[i]
	}
	if err := u.nodes.Replace(objs, ""); err != nil {
		t.Fatal(err)
	}
	pods, err := u.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	objs = make([]any, len(pods.Items))
	for i := range pods.Items {
		objs[i] = &pods.Items[i]
	}
	if err := u.pods.Replace(objs, ""); err != nil {
		t.Fatal(err)
	}
}

// clientAPI is the library Monitor's API over a fake clientset of its own
// (nodes, pods) and the shared one that holds the live Leases.
type clientAPI struct {
	client, leases *clientsetfake.Clientset
	now            func() time.Time
}

func (a clientAPI) GetLease(ctx context.Context, name string) (ours.LiveLease, error) {
	l, err := a.leases.CoordinationV1().Leases(v1.NamespaceNodeLease).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return ours.LiveLease{}, nil
	}
	if err != nil {
		return ours.LiveLease{}, err
	}
	return ours.LiveLease{Found: true, ResourceVersion: l.ResourceVersion}, nil
}

func (a clientAPI) GetNode(ctx context.Context, name string) (*v1.Node, error) {
	return a.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
}

func (a clientAPI) UpdateNodeStatus(ctx context.Context, node *v1.Node) error {
	_, err := a.client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
	return err
}

// SwapTaints patches the node's taints, and only when they change, as
// upstream's taint helpers do (every add changes: it stamps TimeAdded) (the fake API server's patch round-trips the
// node through JSON, which reads its times back in the Local location: both
// sides must see that happen to the same nodes).
func (a clientAPI) SwapTaints(ctx context.Context, name string, s ours.Swap) error {
	n, err := a.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	after := s.Apply(n.Spec.Taints, a.now())
	if len(s.Add) == 0 && len(after) == len(n.Spec.Taints) {
		return nil // an added taint is always new (its TimeAdded); a removal may find nothing
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"taints": after}})
	if err != nil {
		return err
	}
	_, err = a.client.CoreV1().Nodes().Patch(ctx, name, k8stypes.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

func (a clientAPI) UpdatePodStatus(ctx context.Context, pod *v1.Pod) error {
	_, err := a.client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	return err // NotFound included: the Monitor takes the pod as gone
}

// monitorNames are the nodes of a monitor sequence.
var monitorNames = []string{"n0", "n1", "n2", "n3", "n4", "n5"}

// monitorHarness runs upstream's monitor and the library's on twin clusters:
// two fake clientsets holding the same nodes and pods, each written by its
// own controller; the kubelets' writes go to both; the live Leases and the
// lease cache are shared (controllers only read them).
type monitorHarness struct {
	t       *rapid.T
	cfg     ours.Config
	clock   *testingclock.FakeClock
	up      *upstreamMonitor
	mine    *clientsetfake.Clientset
	m       *ours.Monitor
	api     ours.API // what m's runs call
	rv      int
	history []string
	passes  int
}

func (h *monitorHarness) log(format string, args ...any) {
	h.history = append(h.history, fmt.Sprintf("%s: ", at(h.clock.Now()))+fmt.Sprintf(format, args...))
}

func (h *monitorHarness) fail(format string, args ...any) {
	h.t.Fatalf("%s\nafter:\n%s", fmt.Sprintf(format, args...), strings.Join(h.history, "\n"))
}

// both applies f to the node in each cluster and writes it back (status and
// labels alike: the fake API server stores the whole object).
func (h *monitorHarness) both(name string, f func(n *v1.Node)) {
	ctx := context.Background()
	for _, c := range []*clientsetfake.Clientset{h.up.client, h.mine} {
		n, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			h.t.Fatal(err)
		}
		f(n)
		if _, err := c.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
			h.t.Fatal(err)
		}
	}
}

// post is the node's kubelet posting Ready with a status drawn (or
// dropping its Ready condition), with a new heartbeat.
func (h *monitorHarness) post(name, label string) {
	now := metav1.NewTime(h.clock.Now())
	status := rapid.SampledFrom([]v1.ConditionStatus{v1.ConditionTrue, v1.ConditionTrue, v1.ConditionFalse, v1.ConditionUnknown}).Draw(h.t, label)
	drop := rapid.IntRange(0, 9).Draw(h.t, label+".drop") == 0
	h.log("%s posts Ready=%s (drop %v)", name, status, drop)
	h.both(name, func(n *v1.Node) {
		i := slices.IndexFunc(n.Status.Conditions, func(c v1.NodeCondition) bool { return c.Type == v1.NodeReady })
		switch {
		case drop && i >= 0:
			n.Status.Conditions = slices.Delete(n.Status.Conditions, i, i+1)
		case i < 0:
			n.Status.Conditions = append(n.Status.Conditions, v1.NodeCondition{Type: v1.NodeReady, Status: status,
				LastHeartbeatTime: now, LastTransitionTime: now})
		default:
			c := &n.Status.Conditions[i]
			if c.Status != status {
				c.LastTransitionTime = now
			}
			c.Status, c.LastHeartbeatTime, c.Reason, c.Message = status, now, "", ""
		}
	})
}

// renew writes the node's live Lease, renewed now.
func (h *monitorHarness) renew(name string) {
	ctx := context.Background()
	leases := h.up.client.CoordinationV1().Leases(v1.NamespaceNodeLease)
	h.rv++
	now := metav1.NewMicroTime(h.clock.Now())
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: v1.NamespaceNodeLease, ResourceVersion: strconv.Itoa(h.rv)},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &name, RenewTime: &now},
	}
	h.log("%s renews its lease at rv %d", name, h.rv)
	_, err := leases.Update(ctx, lease, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		_, err = leases.Create(ctx, lease, metav1.CreateOptions{})
	}
	if err != nil {
		h.t.Fatal(err)
	}
}

// sync brings every cached Lease up to the live one.
func (h *monitorHarness) sync() {
	list, err := h.up.client.CoordinationV1().Leases(v1.NamespaceNodeLease).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	objs := make([]any, len(list.Items))
	for i := range list.Items {
		objs[i] = &list.Items[i]
	}
	if err := h.up.leases.Replace(objs, strconv.Itoa(h.rv)); err != nil {
		h.t.Fatal(err)
	}
	h.log("lease cache synced to rv %d", h.rv)
}

func (h *monitorHarness) cachedLease(name string) *coordinationv1.Lease {
	obj, ok, err := h.up.leases.GetByKey(v1.NamespaceNodeLease + "/" + name)
	if err != nil || !ok {
		return nil
	}
	return obj.(*coordinationv1.Lease)
}

// input is what the library's Monitor reads: its own nodes and pods, the
// shared lease cache.
func (h *monitorHarness) input() ours.PassInput {
	ctx := context.Background()
	list, err := h.mine.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	nodes := make([]*v1.Node, len(list.Items))
	for i := range list.Items {
		nodes[i] = &list.Items[i]
	}
	slices.SortFunc(nodes, func(a, b *v1.Node) int { return strings.Compare(a.Name, b.Name) })
	return ours.PassInput{
		Nodes:        nodes,
		Lease:        h.cachedLease,
		LeaseCacheRV: h.up.leases.LastStoreSyncResourceVersion,
		Pods: func(name string) ([]*v1.Pod, error) {
			pods, err := h.mine.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, err
			}
			var out []*v1.Pod
			for i := range pods.Items {
				if pods.Items[i].Spec.NodeName == name {
					out = append(out, &pods.Items[i])
				}
			}
			return out, nil
		},
	}
}

// pass runs one monitor pass on each side and compares. It returns false
// when the sequence must stop because upstream kept a zone it did not count
// (which zones survive depends on map order; the library drops them all).
func (h *monitorHarness) pass() bool {
	ctx := context.Background()
	h.up.syncFrom(h.t)
	if err := h.up.nc.MonitorNodeHealth(ctx); err != nil {
		h.t.Fatal(err)
	}
	res, _ := h.m.Pass(h.clock.Now(), h.input()).Do(ctx, h.api) // errors are skipped nodes: compared below
	h.passes++
	h.log("pass: %s", res.Disruption)
	h.compareNodes("pass")
	upStates := h.up.nc.ZoneStates()
	for z, s := range upStates {
		if _, counted := res.Counts[z]; !counted {
			h.log("upstream keeps zone %q (%q) it did not count: sequence ends", z, s)
			return false
		}
		if string(res.Disruption.States[z]) != string(s) {
			h.fail("zone %q: upstream %s, evictkit %s", z, s, res.Disruption.States[z])
		}
	}
	if len(upStates) != len(res.Disruption.States) {
		h.fail("zone states: upstream %v, evictkit %v", upStates, res.Disruption.States)
	}
	h.compareQueues()
	return true
}

// drain runs one tainting pass on each side and compares. It returns false
// when the two sides tainted different nodes of the same queue, which
// upstream's heap orders arbitrarily among equal process times.
func (h *monitorHarness) drain() bool {
	ctx := context.Background()
	h.up.syncFrom(h.t)
	ties := false
	for _, z := range h.up.nc.ZoneTainters() {
		ties = ties || h.up.nc.ZoneTainter(z).Ties()
	}
	h.up.nc.DoNoExecuteTaintingPass(ctx)
	if _, err := h.m.Drain(h.clock.Now(), func(name string) (*v1.Node, bool) {
		n, err := h.mine.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		return n, err == nil
	}).Do(ctx, h.api); err != nil {
		h.t.Fatal(err)
	}
	h.log("drain")
	if up, mine := h.queues(); up != mine {
		if ties {
			h.log("drains took different nodes of equal process time: sequence ends\nupstream %s\nevictkit %s", up, mine)
			return false
		}
		h.fail("queues after drain:\nupstream %s\nevictkit %s", up, mine)
	}
	h.compareNodes("drain")
	return true
}

// queues describes each side's zone queues: queued and processed nodes.
func (h *monitorHarness) queues() (up, mine string) {
	var u, m []string
	for _, z := range slices.Sorted(slices.Values(h.up.nc.ZoneTainters())) {
		q, p := h.up.nc.ZoneTainter(z).Contents()
		u = append(u, fmt.Sprintf("%q: queued %v processed %v", z, q, p))
	}
	zones := h.m.Zones()
	for _, z := range slices.Sorted(maps.Keys(zones)) {
		var p []string
		for _, name := range monitorNames {
			if _, tomb := h.m.InQueue(z, name); tomb {
				p = append(p, name)
			}
		}
		q := slices.Sorted(slices.Values(zones[z].Queued))
		m = append(m, fmt.Sprintf("%q: queued %v processed %v", z, q, p))
	}
	return strings.Join(u, "; "), strings.Join(m, "; ")
}

func (h *monitorHarness) compareQueues() {
	if up, mine := h.queues(); up != mine {
		h.fail("queues:\nupstream %s\nevictkit %s", up, mine)
	}
	zones := h.m.Zones()
	for z, s := range h.up.nc.ZoneStates() {
		if got, want := zones[z].Rate, effectiveRate(h.up.nc.ZoneTainter(z)); got != want {
			h.fail("zone %q (%s): upstream rate %v, evictkit %v", z, s, want, got)
		}
	}
}

// describeNode is what the controllers decide about a node: its status, its
// taints (without TimeAdded, which upstream stamps from the wall clock) and
// its pods' Ready status, and the probe saved for it.
func describeNode(c *clientsetfake.Clientset, name string) string {
	ctx := context.Background()
	n, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	// The fake API server's patches read times back in the Local location;
	// which objects went through one is not what is compared here (the
	// probes, compared with their locations, show what it changes).
	for i := range n.Status.Conditions {
		c := &n.Status.Conditions[i]
		c.LastHeartbeatTime = metav1.NewTime(c.LastHeartbeatTime.UTC())
		c.LastTransitionTime = metav1.NewTime(c.LastTransitionTime.UTC())
	}
	var ts []string
	for _, t := range n.Spec.Taints {
		ts = append(ts, t.Key+":"+string(t.Effect))
	}
	slices.Sort(ts)
	pods, _ := c.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	var ps []string
	for _, p := range pods.Items {
		if p.Spec.NodeName != name {
			continue
		}
		for _, pc := range p.Status.Conditions {
			if pc.Type == v1.PodReady {
				ps = append(ps, p.Name+"="+string(pc.Status))
			}
		}
	}
	slices.Sort(ps)
	return fmt.Sprintf("status %s taints %v pods %v", describeStatus(&n.Status), ts, ps)
}

func (h *monitorHarness) compareNodes(what string) {
	for _, name := range monitorNames {
		if up, mine := describeNode(h.up.client, name), describeNode(h.mine, name); up != mine {
			h.fail("after %s, node %s:\nupstream %s\nevictkit %s", what, name, up, mine)
		}
		p, ok := h.m.Probe(name)
		mine := "never seen"
		if ok {
			mine = describeProbe(&p)
		}
		if up := describeUpstreamProbe(h.up.nc, name); up != mine {
			h.fail("after %s, node %s saved: upstream %s, evictkit %s", what, name, up, mine)
		}
	}
}

// monitorStats counts, over a test run, how sequences went.
type monitorStats struct{ sequences, passes, keptZone, tie atomic.Int64 }

// TestMonitorPass drives upstream's monitorNodeHealth and
// doNoExecuteTaintingPass (NewNodeLifecycleController on a fake clientset,
// unstarted informers whose stores the test fills, a fake clock, one
// worker, nodes listed in name order) and the library's Monitor.Pass and
// Monitor.Drain (on a twin fake clientset) through random sequences over
// six nodes in up to three zones (some nodes excluded from disruption
// checks, some never posting): kubelet posts (Ready True, False or
// Unknown, or Ready dropped), Lease renewals, lease cache syncs, clock
// steps around the grace periods and the tainting period, monitor passes
// and tainting passes. After every pass and drain the node statuses, the
// taints, the pods' Ready conditions, the probes saved, the zone states,
// the queues' contents (queued and processed) and the rates must agree.
//
// A sequence ends early, and counts as such, when upstream keeps a zone it
// did not count in a pass (which such zones survive depends on map order;
// the library drops them all, the documented difference) or when the two
// drains took different nodes of one queue among nodes of equal process
// time (upstream's heap order; the library's queue is FIFO). The gate
// NodeControllerLeaseCircuitBreaker runs on (the v1.37 default) and off.
// Writes never fail here; the Monitor's retries are unit-tested in package
// nodelifecycle.
func TestMonitorPass(t *testing.T) {
	withGate(t, features.NodeControllerLeaseCircuitBreaker, "breaker", []bool{true, false}, func(t *testing.T, breaker bool) {
		var stats monitorStats
		rapid.Check(t, func(t *rapid.T) {
			up, _ := zoneConfig(t)
			// Upstream's zone token buckets read the wall clock, not the
			// controller's: only rates at which time plays no part can be
			// compared on a fake clock, 0 (the first token, then none) and
			// +Inf (every draw). The queues' timing at other rates is
			// compared in timedqueue_test.go, the rates in TestZoneRate.
			rates := []float32{0, float32(math.Inf(1))}
			up.evictionRate = rapid.SampledFrom(rates).Draw(t, "rate")
			up.secondaryEvictionRate = rapid.SampledFrom(rates).Draw(t, "secondaryRate")
			cfg := up.config()
			cfg.DisableLeaseCircuitBreaker = !breaker
			cfg.MonitorGracePeriod = rapid.SampledFrom([]time.Duration{50 * time.Second, 20 * time.Second}).Draw(t, "grace")
			clock := testingclock.NewFakeClock(gen.Epoch)
			h := &monitorHarness{t: t, cfg: cfg, clock: clock, mine: plainClientset()}
			h.up = newUpstreamMonitor(t, plainClientset(), clock, cfg, 1)
			h.m, h.api = ours.NewMonitor(cfg), clientAPI{client: h.mine, leases: h.up.client, now: clock.Now}
			stats.sequences.Add(1)

			zones := rapid.SliceOfN(gen.ZoneLabels(), 1, 3).Draw(t, "zones")
			ctx := context.Background()
			for _, name := range monitorNames {
				node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: k8stypes.UID("uid-" + name),
					Labels:            maps.Clone(rapid.SampledFrom(zones).Draw(t, name+".zone")),
					CreationTimestamp: metav1.NewTime(gen.Epoch.Add(-rapid.SampledFrom([]time.Duration{time.Hour, 10 * time.Second}).Draw(t, name+".age")))}}
				if rapid.IntRange(0, 5).Draw(t, name+".excluded") == 0 {
					if node.Labels == nil {
						node.Labels = map[string]string{}
					}
					node.Labels[ours.LabelExcludeDisruption] = ""
				}
				if rapid.IntRange(0, 5).Draw(t, name+".posted") > 0 {
					hb := metav1.NewTime(gen.Epoch)
					node.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady,
						Status:            rapid.SampledFrom([]v1.ConditionStatus{v1.ConditionTrue, v1.ConditionFalse}).Draw(t, name+".ready"),
						LastHeartbeatTime: hb, LastTransitionTime: hb}}
				}
				if rapid.IntRange(0, 3).Draw(t, name+".tainted") == 0 {
					node.Spec.Taints = []v1.Taint{{Key: v1.TaintNodeUnreachable, Effect: v1.TaintEffectNoExecute}}
				}
				pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p-" + name},
					Spec:   v1.PodSpec{NodeName: name},
					Status: v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}}}
				for _, c := range []*clientsetfake.Clientset{h.up.client, h.mine} {
					if _, err := c.CoreV1().Nodes().Create(ctx, node.DeepCopy(), metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
					if _, err := c.CoreV1().Pods("default").Create(ctx, pod.DeepCopy(), metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				}
				h.log("%s: labels %v, %s, taints %v", name, node.Labels, describeStatus(&node.Status), node.Spec.Taints)
				if rapid.Bool().Draw(t, name+".lease") {
					h.renew(name)
				}
			}
			h.sync()

			step := gen.ClockStep(cfg.MonitorGracePeriod, 100*time.Millisecond)
			defer func() { stats.passes.Add(int64(h.passes)) }()
			for i := range rapid.IntRange(1, 60).Draw(t, "ops") {
				name := rapid.SampledFrom(monitorNames).Draw(t, fmt.Sprintf("node%d", i))
				switch op := rapid.IntRange(0, 11).Draw(t, fmt.Sprintf("op%d", i)); op {
				case 0, 1:
					h.post(name, fmt.Sprintf("post%d", i))
				case 2, 3:
					h.renew(name)
				case 4:
					h.sync()
				case 5, 6, 7:
					clock.Step(step.Draw(t, fmt.Sprintf("step%d", i)))
				case 8, 9:
					if !h.pass() {
						stats.keptZone.Add(1)
						return
					}
				default:
					if !h.drain() {
						stats.tie.Add(1)
						return
					}
				}
			}
		})
		t.Logf("breaker %v: %d sequences, %d passes compared; ended early: %d (upstream kept an uncounted zone), %d (equal-time queue order)",
			breaker, stats.sequences.Load(), stats.passes.Load(), stats.keptZone.Load(), stats.tie.Load())
	})
}
