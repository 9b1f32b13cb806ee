package conformance_test

import (
	"context"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	listersv1 "k8s.io/client-go/listers/core/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/flowcontrol"
	nodetopology "k8s.io/component-helpers/node/topology"
	"k8s.io/kubernetes/pkg/controller/nodelifecycle"
	nodescheduler "k8s.io/kubernetes/pkg/controller/nodelifecycle/scheduler"
	"k8s.io/kubernetes/pkg/features"
	testingclock "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/conformance/internal/gen"
	ours "github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/taints"
	"github.com/evictkit/eviction/timedqueue"
)

func TestZoneKey(t *testing.T) {
	labels := []string{v1.LabelFailureDomainBetaZone, v1.LabelFailureDomainBetaRegion, v1.LabelTopologyZone, v1.LabelTopologyRegion}
	rapid.Check(t, func(t *rapid.T) {
		node := &v1.Node{}
		for _, l := range labels {
			if rapid.Bool().Draw(t, l+"?") {
				if node.Labels == nil {
					node.Labels = map[string]string{}
				}
				node.Labels[l] = rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, l)
			}
		}
		if want, got := nodetopology.GetZoneKey(node), ours.ZoneKey(node); got != want {
			t.Fatalf("ZoneKey(%v): upstream %q, evictkit %q", node.Labels, want, got)
		}
	})
}

// readyConditions draws a zone's Ready conditions: nil (no condition),
// True, False, Unknown or an odd status.
func readyConditions(t *rapid.T) []*v1.NodeCondition {
	n := rapid.IntRange(0, 40).Draw(t, "nodes")
	out := make([]*v1.NodeCondition, n)
	for i := range out {
		if rapid.IntRange(0, 5).Draw(t, "condition?") > 0 {
			out[i] = &v1.NodeCondition{Type: v1.NodeReady, Status: gen.ConditionStatus().Draw(t, "status")}
		}
	}
	return out
}

// zoneSettings are the zone flags of kube-controller-manager, as upstream
// takes them (0 is a setting of its own).
type zoneSettings struct {
	unhealthyZoneThreshold float32
	evictionRate           float32
	secondaryEvictionRate  float32
	largeClusterThreshold  int32
}

// zoneConfig draws the zone settings of a configuration and the library
// Config that says the same. No rate is 1: see TestHandleDisruption.
func zoneConfig(t *rapid.T) (zoneSettings, ours.Config) {
	s := zoneSettings{
		unhealthyZoneThreshold: rapid.SampledFrom([]float32{0, 0.1, 0.3, 0.55, 0.75, 1}).Draw(t, "unhealthyZoneThreshold"),
		evictionRate:           rapid.SampledFrom([]float32{0, 0.1, 5.5}).Draw(t, "evictionRate"),
		secondaryEvictionRate:  rapid.SampledFrom([]float32{0, 0.01, 0.5}).Draw(t, "secondaryEvictionRate"),
		largeClusterThreshold:  int32(rapid.SampledFrom([]int{0, 3, 4, 10, 50}).Draw(t, "largeClusterThreshold")),
	}
	return s, s.config()
}

// config is the library Config for s: a zero of upstream's is an explicit
// "stop" field or, for the two thresholds, a value that behaves the same
// (a partially disrupted zone has at least 3 nodes, so a large-cluster
// threshold of 0 acts as 1; any tiny positive unhealthy-zone threshold
// acts as 0).
func (s zoneSettings) config() ours.Config {
	c := ours.Config{
		UnhealthyZoneThreshold: s.unhealthyZoneThreshold,
		EvictionRate:           s.evictionRate,
		SecondaryEvictionRate:  s.secondaryEvictionRate,
		LargeClusterThreshold:  s.largeClusterThreshold,
		StopEviction:           s.evictionRate == 0,
		StopSecondaryEviction:  s.secondaryEvictionRate == 0,
	}
	if s.largeClusterThreshold == 0 {
		c.LargeClusterThreshold = 1
	}
	if s.unhealthyZoneThreshold == 0 {
		c.UnhealthyZoneThreshold = math.SmallestNonzeroFloat32
	}
	return c
}

// settings are the zone settings in force for a library Config.
func settings(cfg ours.Config) zoneSettings {
	e := cfg.Effective()
	return zoneSettings{e.UnhealthyZoneThreshold, e.EvictionRate, e.SecondaryEvictionRate, e.LargeClusterThreshold}
}

func upstreamZoneController(s zoneSettings) *nodelifecycle.Controller {
	return nodelifecycle.ZoneStateController(s.unhealthyZoneThreshold, s.evictionRate, s.secondaryEvictionRate, s.largeClusterThreshold)
}

// TestDrainPeriod: the zone queues are drained as often as upstream drains
// them.
func TestDrainPeriod(t *testing.T) {
	if ours.DrainPeriod != nodescheduler.NodeEvictionPeriod {
		t.Errorf("DrainPeriod = %v, upstream's NodeEvictionPeriod = %v", ours.DrainPeriod, nodescheduler.NodeEvictionPeriod)
	}
}

func TestComputeZoneState(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		up, cfg := zoneConfig(t)
		conds := readyConditions(t)
		notReady, want := upstreamZoneController(up).ComputeZoneState(conds)
		counts := ours.CountReady(conds)
		got := ours.ComputeZoneState(counts, cfg)
		if string(got) != string(want) || counts.NotReady != notReady {
			t.Fatalf("ComputeZoneState(%s, threshold %v): upstream (%d, %s), evictkit (%d, %s)",
				show(conds), cfg.UnhealthyZoneThreshold, notReady, want, counts.NotReady, got)
		}
	})
}

// TestZoneRate compares the rate a zone's limiter gets: upstream's
// setLimiterInZone swaps in evictionLimiterQPS for a Normal zone,
// enterPartialDisruptionFunc (ReducedQPSFunc) for a partially disrupted
// one and enterFullDisruptionFunc (HealthyQPSFunc) for a fully disrupted
// one. A partially disrupted zone has at least 3 nodes.
func TestZoneRate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		up, cfg := zoneConfig(t)
		nc := upstreamZoneController(up)
		size := rapid.IntRange(3, 120).Draw(t, "size")
		for _, s := range []struct {
			ours ours.ZoneState
			want float32
		}{
			{ours.ZoneNormal, up.evictionRate},
			{ours.ZonePartialDisruption, nc.ReducedQPSFunc(size)},
			{ours.ZoneFullDisruption, nc.HealthyQPSFunc(size)},
		} {
			if got, ok := ours.ZoneRate(s.ours, size, cfg); !ok || got != s.want {
				t.Fatalf("ZoneRate(%s, %d, %+v): upstream %v, evictkit (%v, %v)", s.ours, size, cfg, s.want, got, ok)
			}
		}
	})
}

// conditionNode draws a node with random conditions, unschedulable flag
// and taints, some of them the controller's.
func conditionNode(t *rapid.T) *v1.Node {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}
	node.Spec.Unschedulable = rapid.Bool().Draw(t, "unschedulable")
	for _, c := range []v1.NodeConditionType{v1.NodeReady, v1.NodeMemoryPressure, v1.NodeDiskPressure,
		v1.NodePIDPressure, v1.NodeNetworkUnavailable, "Other"} {
		if rapid.IntRange(0, 3).Draw(t, string(c)+"?") > 0 {
			node.Status.Conditions = append(node.Status.Conditions, v1.NodeCondition{Type: c,
				Status: gen.ConditionStatus().Draw(t, string(c))})
		}
	}
	keys := []string{v1.TaintNodeNotReady, v1.TaintNodeUnreachable, v1.TaintNodeMemoryPressure, v1.TaintNodeDiskPressure,
		v1.TaintNodePIDPressure, v1.TaintNodeNetworkUnavailable, v1.TaintNodeUnschedulable, "foo"}
	for range rapid.IntRange(0, 4).Draw(t, "taints") {
		taint := v1.Taint{
			Key:    rapid.SampledFrom(keys).Draw(t, "key"),
			Value:  rapid.SampledFrom([]string{"", "x"}).Draw(t, "value"),
			Effect: rapid.SampledFrom([]v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectNoExecute, v1.TaintEffectPreferNoSchedule}).Draw(t, "effect"),
		}
		if !slices.ContainsFunc(node.Spec.Taints, func(u v1.Taint) bool { return u.Key == taint.Key && u.Effect == taint.Effect }) {
			node.Spec.Taints = append(node.Spec.Taints, taint)
		}
	}
	return node
}

func taintSet(ts []v1.Taint) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
	}
	slices.Sort(out)
	return out
}

// TestConditionTaintTable compares taints.ForCondition and
// taints.ConditionForKey with the node lifecycle controller's table of
// condition → status → NoSchedule taint key, entry by entry and for
// every pair the table lacks (other statuses, odd spellings, unknown
// condition types).
func TestConditionTaintTable(t *testing.T) {
	table := nodelifecycle.ConditionTaintKeys()
	conds := []v1.NodeConditionType{"Bogus", ""}
	for c := range table {
		conds = append(conds, c)
	}
	statuses := []v1.ConditionStatus{v1.ConditionTrue, v1.ConditionFalse, v1.ConditionUnknown, "", "true"}
	for _, c := range conds {
		for _, s := range statuses {
			key, want := table[c][s]
			got, ok := taints.ForCondition(c, s)
			if ok != want || got.Key != key || (ok && got.Effect != v1.TaintEffectNoSchedule) {
				t.Errorf("ForCondition(%q, %q) = %+v, %v; upstream key %q, %v", c, s, got, ok, key, want)
			}
			if want {
				if cond, ok := taints.ConditionForKey(key); !ok || cond != c {
					t.Errorf("ConditionForKey(%q) = %q, %v; upstream table has it under %q", key, cond, ok, c)
				}
			}
		}
	}
}

// TestNoScheduleTaints runs upstream's doNoScheduleTaintingPass against a
// fake clientset holding the node and compares the node's taints after
// the write with the library's NoScheduleTaints applied by Swap.Apply
// (TimeAdded aside: upstream stamps the wall clock).
func TestNoScheduleTaints(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		node := conditionNode(t)
		client := clientsetfake.NewClientset(node.DeepCopy())
		indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
		if err := indexer.Add(node.DeepCopy()); err != nil {
			t.Fatal(err)
		}
		if err := nodelifecycle.NoScheduleTaintingPass(context.Background(), client, listersv1.NewNodeLister(indexer), node.Name); err != nil {
			t.Fatal(err)
		}
		written, err := client.CoreV1().Nodes().Get(context.Background(), node.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		add, remove := ours.NoScheduleTaints(node)
		got := ours.Swap{Add: add, Remove: remove}.Apply(node.Spec.Taints, gen.Epoch.Add(time.Hour))
		if w, g := taintSet(written.Spec.Taints), taintSet(got); !slices.Equal(g, w) {
			t.Fatalf("NoScheduleTaints(%s): upstream writes %q, evictkit %q (add %s, remove %s)",
				show(node), w, g, show(add), show(remove))
		}
	})
}

// queueState is a node's state in a rate-limited queue: "absent", "queued"
// or "processed" (the tombstone a successful Try leaves).
type queueState string

// TestNoExecuteAction runs upstream's processTaintBaseEviction for a node
// (taints read from it, written through a fake clientset, the node queued
// in its zone's RateLimitedTimedQueue) and applies the library's
// NoExecuteAction to the same node and a library RateLimited queue in the
// same state, then compares the node's taints and the node's state in the
// queue.
func TestNoExecuteAction(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		node := conditionNode(t)
		ready := &v1.NodeCondition{Type: v1.NodeReady, Status: gen.ConditionStatus().Draw(t, "ready")}
		state := rapid.SampledFrom([]queueState{"absent", "queued", "processed"}).Draw(t, "queue")

		upQ := nodescheduler.NewRateLimitedTimedQueue(flowcontrol.NewFakeAlwaysRateLimiter())
		ourQ := timedqueue.NewRateLimited[string](float32(math.Inf(1)))
		now := time.Now() // upstream's queue reads the real clock
		if state != "absent" {
			upQ.Add(node.Name, string(node.UID))
			ourQ.Add(now, node.Name, string(node.UID))
		}
		if state == "processed" {
			upQ.Try(logger, func(nodescheduler.TimedValue) (bool, time.Duration) { return true, 0 })
			ourQ.Try(now, func(timedqueue.TimedValue[string]) (bool, time.Duration) { return true, 0 })
		}

		client := clientsetfake.NewClientset(node.DeepCopy())
		nodelifecycle.ProcessTaintBaseEviction(context.Background(), client, upQ, node.DeepCopy(), ready)
		written, err := client.CoreV1().Nodes().Get(context.Background(), node.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}

		a := ours.NoExecuteAction(node, ready)
		got := a.Swap.Apply(node.Spec.Taints, gen.Epoch)
		switch a.Kind {
		case ours.Enqueue:
			if a.ClearTombstone {
				ourQ.Remove(node.Name)
			}
			ourQ.Add(now, node.Name, string(node.UID))
		case ours.Untaint:
			ourQ.Remove(node.Name)
		}

		probe := func(try func() bool, add func() bool) queueState {
			switch {
			case try():
				return "queued"
			case !add():
				return "processed"
			}
			return "absent"
		}
		wantState := probe(func() bool {
			called := false
			upQ.Try(logger, func(nodescheduler.TimedValue) (bool, time.Duration) { called = true; return false, time.Hour })
			return called
		}, func() bool { return upQ.Add(node.Name, nil) })
		gotState := probe(func() bool {
			return ourQ.Try(now, func(timedqueue.TimedValue[string]) (bool, time.Duration) { return false, time.Hour }) > 0
		}, func() bool { return ourQ.Add(now, node.Name, nil) })

		if w, g := taintSet(written.Spec.Taints), taintSet(got); !slices.Equal(g, w) || gotState != wantState {
			t.Fatalf("NoExecuteAction(%s, Ready %s), queue %s: upstream taints %q, queue %s; evictkit %v: taints %q, queue %s",
				show(node), ready.Status, state, w, wantState, a.Kind, g, gotState)
		}
	})
}

// plainClientset is a fake clientset on client-go's plain object tracker.
// NewClientset's field-managed tracker builds a REST mapper on every write
// (some 15 ms), which the sequences here would spend most of their time
// in; managed fields play no part in what is compared. (This is what the
// deprecated NewSimpleClientset does, without watches.)
func plainClientset() *clientsetfake.Clientset {
	cs := &clientsetfake.Clientset{}
	cs.AddReactor("*", "*", clienttesting.ObjectReaction(
		clienttesting.NewObjectTracker(clientscheme.Scheme, clientscheme.Codecs.UniversalDecoder())))
	return cs
}

// upstreamController builds upstream's node lifecycle controller the way
// kube-controller-manager does, with NewNodeLifecycleController, on client
// and on informers of a factory that is never started: the test fills the
// lease cache itself through the returned store (the lease informer's
// store, which the controller's lease lister and its lease circuit breaker
// read). The controller reads the time from clock.
func upstreamController(t tester, client *clientsetfake.Clientset, clock *testingclock.FakeClock, cfg ours.Config) (*nodelifecycle.Controller, cache.Store) {
	t.Helper()
	factory := informers.NewSharedInformerFactory(client, 0)
	leases := factory.Coordination().V1().Leases()
	e, s := cfg.Effective(), settings(cfg)
	nc, err := nodelifecycle.NewNodeLifecycleController(context.Background(), leases,
		factory.Core().V1().Pods(), factory.Core().V1().Nodes(), factory.Apps().V1().DaemonSets(), client,
		e.MonitorPeriod, e.StartupGracePeriod, e.MonitorGracePeriod,
		s.evictionRate, s.secondaryEvictionRate, s.largeClusterThreshold, s.unhealthyZoneThreshold)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetClock(func() metav1.Time { return metav1.NewTime(clock.Now()) })
	t.Cleanup(nc.Stop)
	return nc, leases.Informer().GetStore()
}

// utcPlus1 writes an instant in another Location: upstream compares
// heartbeats with Go's struct inequality, so the same instant written
// there counts as a new heartbeat.
var utcPlus1 = time.FixedZone("UTC+1", 3600)

// at formats a time as its offset from gen.Epoch, with its Location when
// that is not UTC, so that two descriptions are equal iff upstream's
// struct comparison would find the times equal.
func at(t time.Time) string {
	if t.IsZero() {
		return "zero"
	}
	s := t.Sub(gen.Epoch).String()
	if t.Location() != time.UTC {
		s += "@" + t.Location().String()
	}
	return s
}

func describeCondition(c *v1.NodeCondition) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%s=%s(%s/%s) hb %s tr %s", c.Type, c.Status, c.Reason, c.Message,
		at(c.LastHeartbeatTime.Time), at(c.LastTransitionTime.Time))
}

func describeStatus(s *v1.NodeStatus) string {
	if s == nil {
		return "no write"
	}
	out := make([]string, len(s.Conditions))
	for i := range s.Conditions {
		out[i] = describeCondition(&s.Conditions[i])
	}
	return "[" + strings.Join(out, "; ") + "]"
}

func readyOf(s *v1.NodeStatus) *v1.NodeCondition {
	if s == nil {
		return nil
	}
	for i := range s.Conditions {
		if s.Conditions[i].Type == v1.NodeReady {
			return &s.Conditions[i]
		}
	}
	return nil
}

func describeLease(renew *metav1.MicroTime, rv string) string {
	r := "nil"
	if renew != nil {
		r = at(renew.Time)
	}
	return fmt.Sprintf("lease(renew %s, rv %q)", r, rv)
}

// describeProbe describes the library's saved state the way
// describeUpstreamProbe describes upstream's nodeHealthData.
func describeProbe(p *ours.Probe) string {
	if p == nil {
		return "never seen"
	}
	lease := "no lease"
	if p.Lease != nil {
		lease = describeLease(p.Lease.RenewTime, p.Lease.ResourceVersion)
	}
	return fmt.Sprintf("probe %s, transition %s, ready %s, %s", at(p.ProbeTime), at(p.ReadyTransitionTime),
		describeCondition(p.Ready), lease)
}

func describeUpstreamProbe(nc *nodelifecycle.Controller, name string) string {
	probe, transition, status, lease, ok := nc.NodeHealth(name)
	if !ok {
		return "never seen"
	}
	l := "no lease"
	if lease != nil {
		l = describeLease(lease.Spec.RenewTime, lease.ResourceVersion)
	}
	return fmt.Sprintf("probe %s, transition %s, ready %s, %s", at(probe.Time), at(transition.Time),
		describeCondition(readyOf(status)), l)
}

// healthHarness is one upstream controller and the library's state for
// the same nodes: the probes the library says to save and the circuit
// breaker's recorded lease resourceVersion. The nodes live in a fake
// clientset, the kubelet's writes and the controller's alike, and both
// sides judge the node read back from it, as the node lister would hand
// it over; leases live in the same clientset (the live Lease the breaker
// GETs) and, once synced, in the lease informer's store (the cache).
type healthHarness struct {
	t        *rapid.T
	cfg      ours.Config
	clock    *testingclock.FakeClock
	client   *clientsetfake.Clientset
	cache    cache.Store
	nc       *nodelifecycle.Controller
	saved    map[string]*ours.Probe
	recorded string // the newest live lease resourceVersion a Skipped verdict reported
	rv       int    // the fake API server's last resourceVersion
	history  []string
}

func (h *healthHarness) fail(format string, args ...any) {
	h.t.Fatalf("%s\nafter: %s", fmt.Sprintf(format, args...), strings.Join(h.history, "; "))
}

func (h *healthHarness) log(format string, args ...any) {
	h.history = append(h.history, fmt.Sprintf("%s: ", at(h.clock.Now()))+fmt.Sprintf(format, args...))
}

func (h *healthHarness) node(name string) *v1.Node {
	node, err := h.client.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return node
}

func (h *healthHarness) liveLease(name string) *coordinationv1.Lease {
	lease, err := h.client.CoordinationV1().Leases(v1.NamespaceNodeLease).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return lease
}

func (h *healthHarness) cachedLease(name string) *coordinationv1.Lease {
	obj, ok, err := h.cache.GetByKey(v1.NamespaceNodeLease + "/" + name)
	if err != nil {
		h.t.Fatal(err)
	}
	if !ok {
		return nil
	}
	return obj.(*coordinationv1.Lease)
}

// post changes a node's status the way a kubelet, or an odd one, might.
func (h *healthHarness) post(name, label string) {
	t := h.t
	node := h.node(name)
	now := metav1.NewTime(h.clock.Now())
	conds := node.Status.Conditions
	ready := slices.IndexFunc(conds, func(c v1.NodeCondition) bool { return c.Type == v1.NodeReady })
	status := gen.ConditionStatus().Draw(t, label+".status")
	switch kind := rapid.IntRange(0, 9).Draw(t, label); {
	case kind <= 4 || ready < 0 && kind <= 7: // a heartbeat
		h.log("%s posts Ready=%s", name, status)
		if ready < 0 {
			conds = append(conds, v1.NodeCondition{Type: v1.NodeReady, Status: status, Reason: "KubeletReady",
				LastHeartbeatTime: now, LastTransitionTime: now})
			break
		}
		c := &conds[ready]
		if c.Status != status {
			c.LastTransitionTime = now
		}
		c.Status, c.Reason, c.Message, c.LastHeartbeatTime = status, "KubeletReady", "", now
	case kind == 5: // a status change under the old heartbeat
		h.log("%s changes Ready to %s, same heartbeat", name, status)
		conds[ready].Status = status
		conds[ready].LastTransitionTime = now
	case kind == 6: // the same heartbeat instant, written in another Location
		c := &conds[ready]
		loc := utcPlus1
		if c.LastHeartbeatTime.Location() != time.UTC {
			loc = time.UTC
		}
		h.log("%s rewrites its heartbeat in %s", name, loc)
		c.LastHeartbeatTime = metav1.NewTime(c.LastHeartbeatTime.In(loc))
	case kind == 7:
		h.log("%s drops its Ready condition", name)
		conds = slices.Delete(conds, ready, ready+1)
	case kind == 8: // pressure and network conditions, posted or dropped
		typ := rapid.SampledFrom([]v1.NodeConditionType{v1.NodeMemoryPressure, v1.NodeDiskPressure,
			v1.NodePIDPressure, v1.NodeNetworkUnavailable}).Draw(t, label+".type")
		i := slices.IndexFunc(conds, func(c v1.NodeCondition) bool { return c.Type == typ })
		switch {
		case rapid.IntRange(0, 3).Draw(t, label+".drop") == 0:
			h.log("%s drops %s", name, typ)
			if i >= 0 {
				conds = slices.Delete(conds, i, i+1)
			}
		case i < 0:
			h.log("%s posts %s=%s", name, typ, status)
			conds = append(conds, v1.NodeCondition{Type: typ, Status: status, LastHeartbeatTime: now, LastTransitionTime: now})
		default:
			h.log("%s posts %s=%s", name, typ, status)
			conds[i].Status, conds[i].LastHeartbeatTime = status, now
		}
	case kind == 9: // a second Ready condition: only the first counts
		h.log("%s adds a second Ready=%s", name, status)
		conds = append(conds, v1.NodeCondition{Type: v1.NodeReady, Status: status, LastHeartbeatTime: now, LastTransitionTime: now})
	}
	node.Status.Conditions = conds
	if _, err := h.client.CoreV1().Nodes().UpdateStatus(context.Background(), node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// renew writes a node's live Lease with a new resourceVersion: renewed
// now, re-written without renewing, set back in time, or with no renew
// time at all.
func (h *healthHarness) renew(name, label string) {
	live := h.liveLease(name)
	now := metav1.NewMicroTime(h.clock.Now())
	renew := &now
	what := "renews"
	switch rapid.IntRange(0, 5).Draw(h.t, label) {
	case 3:
		if live != nil {
			renew, what = live.Spec.RenewTime, "re-writes"
		}
	case 4:
		back := metav1.NewMicroTime(h.clock.Now().Add(-30 * time.Second))
		renew, what = &back, "sets back"
	case 5:
		renew, what = nil, "clears"
	}
	h.rv++
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: v1.NamespaceNodeLease, ResourceVersion: strconv.Itoa(h.rv)},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &name, RenewTime: renew},
	}
	h.log("%s %s its lease: %s", name, what, describeLease(renew, lease.ResourceVersion))
	leases := h.client.CoordinationV1().Leases(v1.NamespaceNodeLease)
	var err error
	if live == nil {
		_, err = leases.Create(context.Background(), lease, metav1.CreateOptions{})
	} else {
		_, err = leases.Update(context.Background(), lease, metav1.UpdateOptions{})
	}
	if err != nil {
		h.t.Fatal(err)
	}
}

// deleteLease deletes a node's live Lease (the deletion gets a
// resourceVersion of its own).
func (h *healthHarness) deleteLease(name string) {
	if h.liveLease(name) == nil {
		return
	}
	h.rv++
	h.log("%s's lease deleted at rv %d", name, h.rv)
	if err := h.client.CoordinationV1().Leases(v1.NamespaceNodeLease).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

// sync brings the cached Lease of a node up to the live one, as the lease
// informer would, and so the cache's synced resourceVersion to its
// resourceVersion (to the current one for a deletion).
func (h *healthHarness) sync(name string) {
	live := h.liveLease(name)
	if live == nil {
		cached := h.cachedLease(name)
		if cached == nil {
			return
		}
		gone := cached.DeepCopy()
		gone.ResourceVersion = strconv.Itoa(h.rv)
		h.log("cache drops %s's lease", name)
		if err := h.cache.Delete(gone); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	h.log("cache syncs %s", describeLease(live.Spec.RenewTime, live.ResourceVersion))
	if err := h.cache.Update(live); err != nil {
		h.t.Fatal(err)
	}
}

// judge runs upstream's tryUpdateNodeHealth on a node and the library's
// judgement on the same node, cached Lease and saved state, and compares
// what each writes (the node status), returns (grace period, observed and
// current Ready) and saves (probe, transition, saved Ready and Lease).
func (h *healthHarness) judge(name string) {
	ctx := context.Background()
	node := h.node(name)
	cached := h.cachedLease(name)
	now := h.clock.Now()
	synced := h.cache.LastStoreSyncResourceVersion()
	h.log("judge %s (cache synced to %q)", name, synced)

	h.client.ClearActions()
	grace, observed, current, err := h.nc.TryUpdateNodeHealth(ctx, node.DeepCopy())
	var written *v1.NodeStatus
	leaseGets := 0
	for _, a := range h.client.Actions() {
		switch {
		case a.Matches("update", "nodes") && a.GetSubresource() == "status":
			written = &a.(clienttesting.UpdateAction).GetObject().(*v1.Node).Status
		case a.Matches("get", "leases"):
			leaseGets++
		}
	}
	upSaved := describeUpstreamProbe(h.nc, name)

	// The library, driven as its documentation tells a controller to: while
	// the lease cache is behind the recorded live resourceVersion every node
	// is skipped; otherwise forget the record and judge, fetching the live
	// Lease when the judgement asks for it.
	var (
		health  ours.Health
		skipped bool
		verdict string
	)
	if !h.cfg.DisableLeaseCircuitBreaker && ours.LeaseCacheBehind(h.recorded, synced) {
		skipped, verdict = true, "skipped: lease cache behind "+h.recorded
	} else {
		h.recorded = ""
		health = ours.Evaluate(node, cached, h.saved[name], now, h.cfg)
		if health.Verdict == ours.NeedsLeaseCheck {
			var live ours.LiveLease
			if l := h.liveLease(name); l != nil {
				live = ours.LiveLease{Found: true, ResourceVersion: l.ResourceVersion}
			}
			if leaseGets != 1 {
				h.fail("judging %s: evictkit asks for a live lease check, upstream made %d lease GETs", name, leaseGets)
			}
			health = ours.EvaluateWithLiveLease(node, cached, h.saved[name], live, now, h.cfg)
		} else if leaseGets != 0 {
			h.fail("judging %s: evictkit says %v without a live lease check, upstream made %d lease GETs", name, health.Verdict, leaseGets)
		}
		verdict = health.Verdict.String()
		p := health.Saved() // writes never fail here
		if health.Verdict == ours.Skipped {
			skipped = true
			h.recorded = ours.NewerResourceVersion(h.recorded, health.LiveLeaseRV)
			verdict += ": live lease at " + health.LiveLeaseRV
		}
		h.saved[name] = &p
	}
	ourSaved := describeProbe(h.saved[name])

	if (err != nil) != skipped {
		h.fail("judging %s: upstream error %v, evictkit %s", name, err, verdict)
	}
	if !skipped {
		if grace != health.Grace {
			h.fail("judging %s: upstream grace %v, evictkit %v (%s)", name, grace, health.Grace, verdict)
		}
		if w, g := describeCondition(&observed), describeCondition(&health.Observed); g != w {
			h.fail("judging %s: observed Ready: upstream %s, evictkit %s", name, w, g)
		}
		if w, g := describeCondition(current), describeCondition(health.Current); g != w {
			h.fail("judging %s: current Ready: upstream %s, evictkit %s (%s)", name, w, g, verdict)
		}
	}
	if w, g := describeStatus(written), describeStatus(health.Status); g != w {
		h.fail("judging %s: status written: upstream %s, evictkit %s (%s)", name, w, g, verdict)
	}
	if upSaved != ourSaved {
		h.fail("judging %s: saved state: upstream %s, evictkit %s (%s)", name, upSaved, ourSaved, verdict)
	}
	h.log("%s, grace %v, wrote %s", verdict, grace, describeStatus(written))
}

// healthNames are the nodes of a health sequence: two, so that one node's
// stale lease cache holds the other back (the breaker is controller-wide).
var healthNames = []string{"n0", "n1"}

// TestNodeHealth drives upstream's node lifecycle controller, built with
// NewNodeLifecycleController on a fake clientset, unstarted informers and
// a fake clock, through random sequences of kubelet status posts (new
// heartbeats, status changes under an old heartbeat, the same heartbeat
// written in another Location, Ready dropped or doubled, pressure
// conditions), Lease writes (renewed, re-written, set back, cleared,
// deleted), lease cache syncs and clock steps around the grace periods,
// judging a node with tryUpdateNodeHealth at random points; the library
// judges the same node with Evaluate and, when it asks for a live lease
// check, EvaluateWithLiveLease against the live Lease, keeping the saved
// Probe and the breaker's recorded resourceVersion (LeaseCacheBehind,
// NewerResourceVersion) as its documentation says. After every judgement
// the status written, the grace period, the observed and current Ready
// conditions and the state saved must agree.
//
// The NodeControllerLeaseCircuitBreaker gate runs at its v1.37 default
// (on) and off. Writes never fail here, so the retry of monitorNodeHealth
// (which re-reads the node and judges it again) is not exercised.
func TestNodeHealth(t *testing.T) {
	// NewNodeLifecycleController and tryUpdateNodeHealth read the gate.
	withGate(t, features.NodeControllerLeaseCircuitBreaker, "breaker", []bool{true, false}, func(t *testing.T, breaker bool) {
		rapid.Check(t, func(t *rapid.T) {
			cfg := ours.Config{DisableLeaseCircuitBreaker: !breaker}
			cfg.MonitorGracePeriod = rapid.SampledFrom([]time.Duration{50 * time.Second, 40 * time.Second, 10 * time.Second}).Draw(t, "grace")
			cfg.StartupGracePeriod = rapid.SampledFrom([]time.Duration{60 * time.Second, 40 * time.Second, 5 * time.Second}).Draw(t, "startupGrace")
			h := &healthHarness{t: t, cfg: cfg, clock: testingclock.NewFakeClock(gen.Epoch),
				client: plainClientset(), saved: map[string]*ours.Probe{}}
			h.nc, h.cache = upstreamController(t, h.client, h.clock, cfg)

			for _, name := range healthNames {
				age := rapid.SampledFrom([]time.Duration{0, 30 * time.Second, cfg.StartupGracePeriod, time.Hour}).Draw(t, name+".age")
				node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
					CreationTimestamp: metav1.NewTime(gen.Epoch.Add(-age))}}
				if rapid.Bool().Draw(t, name+".posted") {
					hb := metav1.NewTime(gen.Epoch.Add(-rapid.SampledFrom([]time.Duration{0, 10 * time.Second, time.Hour}).Draw(t, name+".hb")))
					node.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady,
						Status: gen.ConditionStatus().Draw(t, name+".ready"), LastHeartbeatTime: hb, LastTransitionTime: hb}}
				}
				if _, err := h.client.CoreV1().Nodes().Create(context.Background(), node, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				h.log("%s created %v ago with %s", name, age, describeStatus(&node.Status))
				if rapid.Bool().Draw(t, name+".lease") {
					h.renew(name, name+".leaseKind")
					h.sync(name)
				}
			}

			step := gen.ClockStep(cfg.MonitorGracePeriod, cfg.StartupGracePeriod)
			for i := range rapid.IntRange(1, 40).Draw(t, "ops") {
				name := rapid.SampledFrom(healthNames).Draw(t, fmt.Sprintf("node%d", i))
				switch op := rapid.IntRange(0, 9).Draw(t, fmt.Sprintf("op%d", i)); op {
				case 0, 1:
					h.post(name, fmt.Sprintf("post%d", i))
				case 2:
					h.renew(name, fmt.Sprintf("renew%d", i))
				case 3:
					if rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("delete%d", i)) == 0 {
						h.deleteLease(name)
					}
					h.sync(name)
				case 4, 5, 6:
					d := step.Draw(t, fmt.Sprintf("step%d", i))
					h.clock.Step(d)
				default:
					h.judge(name)
				}
			}
		})
	})
}

// neverLimiter is the type of client-go's "never" rate limiter, which
// upstream's SwapLimiter installs for a rate ≤ 0 and which reports QPS 1.
var neverLimiter = reflect.TypeOf(flowcontrol.NewFakeNeverRateLimiter())

// effectiveRate is the rate a zone's queue hands out tokens at: 0 for the
// "never" limiter, the token bucket's qps otherwise.
func effectiveRate(q *nodescheduler.RateLimitedTimedQueue) float32 {
	l := q.Limiter()
	if reflect.TypeOf(l) == neverLimiter {
		return 0
	}
	return l.QPS()
}

// disruptionNodes are the names of the nodes a disruption pass may list.
var disruptionNodes = []string{"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"}

// disruptionPass draws the nodes of one monitor pass: each with zone
// labels from zones, a Ready condition (or none) and sometimes the
// exclusion label. In about a third of the passes no node is ready, so
// that every zone goes down together often.
func disruptionPass(t *rapid.T, label string, zones []map[string]string) []*v1.Node {
	down := rapid.IntRange(0, 2).Draw(t, label+".down") == 0
	names := rapid.SliceOfNDistinct(rapid.SampledFrom(disruptionNodes), 0, len(disruptionNodes), rapid.ID).Draw(t, label+".nodes")
	slices.Sort(names)
	nodes := make([]*v1.Node, len(names))
	for i, name := range names {
		node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: maps.Clone(rapid.SampledFrom(zones).Draw(t, name+".zone"))}}
		if rapid.IntRange(0, 5).Draw(t, name+".excluded") == 0 {
			if node.Labels == nil {
				node.Labels = map[string]string{}
			}
			node.Labels[ours.LabelExcludeDisruption] = ""
		}
		if rapid.IntRange(0, 7).Draw(t, name+".ready?") > 0 {
			status := gen.ConditionStatus()
			if down {
				status = rapid.SampledFrom([]v1.ConditionStatus{v1.ConditionFalse, v1.ConditionUnknown, "true"})
			}
			node.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: status.Draw(t, name+".ready")}}
		}
		nodes[i] = node
	}
	return nodes
}

// TestHandleDisruption runs random sequences of monitor passes through
// upstream's handleDisruption on a controller built by
// NewNodeLifecycleController, and through the library's HandleDisruption,
// and compares after every pass the zone states, each zone's effective
// eviction rate, and whether the pass entered the all-zones-down mode
// (upstream strips every listed node's NoExecute taint) or left it
// (upstream resets every listed node's probe and transition time to now).
//
// The harness plays monitorNodeHealth's part around handleDisruption: it
// gives every listed node's zone a queue (addPodEvictorForNewZone) and
// groups the Ready conditions of the listed nodes that are not excluded by
// zone key. The library gets upstream's zone states as prev (zones that
// just got a queue are Initial): upstream drops zones not counted in a
// pass during a map walk that stops at the first zone not fully disrupted,
// so, in map order, some such zones survive a pass (with the state "", or
// FullDisruption when the pass enters the all-zones-down mode); the
// library drops them all, which the test accepts (the documented
// difference), and then continues from upstream's states.
//
// Rates: upstream's SwapLimiter installs a "never" limiter for a rate ≤ 0
// that reports QPS 1, so a later swap to 1 is ignored and the zone stays
// stopped; the library resumes (a deliberate difference of timedqueue,
// asserted in TestRateLimitedQueueDifferences). The rates drawn here are
// never 1. The legacy pod-eviction mode (v1.26, --enable-taint-manager=false)
// is out of reach: v1.37.2 no longer has it.
func TestHandleDisruption(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		up, cfg := zoneConfig(t)
		clock := testingclock.NewFakeClock(gen.Epoch)
		client := plainClientset()
		nc, _ := upstreamController(t, client, clock, cfg)
		ctx := context.Background()
		nodesAPI := client.CoreV1().Nodes()
		for _, name := range disruptionNodes {
			if _, err := nodesAPI.Create(ctx, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		unreachable := v1.Taint{Key: v1.TaintNodeUnreachable, Effect: v1.TaintEffectNoExecute}
		long := metav1.NewTime(gen.Epoch.Add(-time.Hour))
		var history []string

		// A few zones per sequence, so that zones often have enough nodes
		// to be partially disrupted and to cross LargeClusterThreshold.
		zones := rapid.SliceOfN(gen.ZoneLabels(), 1, 3).Draw(t, "zones")
		for pass := range rapid.IntRange(1, 12).Draw(t, "passes") {
			clock.Step(5 * time.Second)
			nodes := disruptionPass(t, fmt.Sprintf("pass%d", pass), zones)
			for _, node := range nodes {
				nc.AddPodEvictorForNewZone(node)
				// A NoExecute taint to see entering the all-zones-down mode
				// strip it, an old probe to see leaving it reset the probe.
				node.Spec.Taints = []v1.Taint{unreachable}
				if _, err := nodesAPI.Update(ctx, node, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
				nc.SetNodeHealth(node.Name, long, long)
			}
			prev := nc.ZoneStates()
			ourPrev := make(map[string]ours.ZoneState, len(prev))
			for z, s := range prev {
				ourPrev[z] = ours.ZoneState(s)
			}
			upConds := map[string][]*v1.NodeCondition{}
			counts := map[string]ours.ZoneCounts{}
			var listed []string
			for _, node := range nodes {
				ready := readyOf(&node.Status)
				zone := ours.ZoneKey(node)
				listed = append(listed, fmt.Sprintf("%s@%q:%s", node.Name, zone, describeCondition(ready)))
				if ours.ExcludedFromDisruption(node) {
					listed[len(listed)-1] += "(excluded)"
					continue
				}
				key := nodetopology.GetZoneKey(node)
				upConds[key] = append(upConds[key], ready)
				c := counts[zone]
				c.Add(ready)
				counts[zone] = c
			}
			pre := map[string]float32{}
			for z := range counts {
				pre[z] = effectiveRate(nc.ZoneTainter(z))
				if prev[z] == nodelifecycle.StateInitial && pre[z] != up.evictionRate {
					t.Fatalf("pass %d: new zone %q starts upstream at rate %v, evictkit documents %v", pass, z, pre[z], up.evictionRate)
				}
			}
			history = append(history, fmt.Sprintf("pass %d: prev %v, nodes %s", pass, prev, strings.Join(listed, " ")))

			got := ours.HandleDisruption(ourPrev, counts, cfg)
			nc.HandleDisruption(ctx, upConds, nodes)

			after := nc.ZoneStates()
			rates := map[string]float32{}
			for z := range after {
				rates[z] = effectiveRate(nc.ZoneTainter(z))
			}
			stripped, reset := 0, 0
			for _, node := range nodes {
				n, err := nodesAPI.Get(ctx, node.Name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if len(n.Spec.Taints) == 0 {
					stripped++
				}
				if probe, tr, _, _, _ := nc.NodeHealth(node.Name); probe.Time.Equal(clock.Now()) && tr.Time.Equal(clock.Now()) {
					reset++
				}
			}
			upstream := fmt.Sprintf("states %v, rates %v, stripped %d/%d, reset %d/%d", after, rates, stripped, len(nodes), reset, len(nodes))
			fail := func(format string, args ...any) {
				t.Fatalf("pass %d: %s\nupstream: %s\nevictkit: %s\nhistory:\n%s", pass, fmt.Sprintf(format, args...),
					upstream, got, strings.Join(history, "\n"))
			}
			if (stripped != 0 && stripped != len(nodes)) || (reset != 0 && reset != len(nodes)) {
				fail("upstream stripped or reset only some nodes")
			}
			if entered := len(nodes) > 0 && stripped == len(nodes); entered != got.Entered {
				fail("entering the all-zones-down mode: upstream %v, evictkit %v", entered, got.Entered)
			}
			if exited := len(nodes) > 0 && reset == len(nodes); exited != got.Exited {
				fail("leaving the all-zones-down mode: upstream %v, evictkit %v", exited, got.Exited)
			}
			if len(got.States) != len(counts) {
				fail("evictkit states %d zones, %d counted", len(got.States), len(counts))
			}
			var uncounted []string
			for z := range prev {
				if _, ok := counts[z]; !ok {
					uncounted = append(uncounted, z)
				}
			}
			slices.Sort(uncounted)
			if !slices.Equal(got.Dropped, uncounted) {
				fail("evictkit drops %q, the zones not counted are %q", got.Dropped, uncounted)
			}
			for z, s := range after {
				if _, ok := counts[z]; !ok {
					continue // not counted: upstream may keep it a pass longer; the library drops it
				}
				if string(got.States[z]) != string(s) {
					fail("zone %q: upstream state %s, evictkit %s", z, s, got.States[z])
				}
				want, swapped := got.Rates[z]
				if !swapped {
					want = pre[z]
				}
				if rates[z] != want {
					fail("zone %q: upstream rate %v (before the pass %v), evictkit %v (swapped %v)", z, rates[z], pre[z], want, swapped)
				}
			}
			for z := range counts {
				if _, ok := after[z]; !ok {
					fail("zone %q counted but upstream has no state for it", z)
				}
			}
			history = append(history, fmt.Sprintf("  upstream %s; evictkit %s", upstream, got))
		}
	})
}
