package nodelifecyclecontroller

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/reference"
	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/events"
	"github.com/evictkit/eviction/nodelifecycle/legacy"
)

// event is one event as a recorder received it.
type event struct {
	Kind, Namespace, Name string
	UID                   types.UID
	Type, Reason, Message string
}

func (e event) String() string {
	return fmt.Sprintf("%s %s/%s (%s): %s %s %q", e.Kind, e.Namespace, e.Name, e.UID, e.Type, e.Reason, e.Message)
}

// capture is a record.EventRecorder that keeps every event in order, with
// the reference the API server's Event would carry.
type capture struct {
	mu     sync.Mutex
	events []event
}

func (c *capture) Event(obj runtime.Object, typ, reason, message string) {
	ref, err := reference.GetReference(scheme.Scheme, obj)
	if err != nil {
		panic(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, event{ref.Kind, ref.Namespace, ref.Name, ref.UID, typ, reason, message})
}

func (c *capture) Eventf(obj runtime.Object, typ, reason, format string, args ...any) {
	c.Event(obj, typ, reason, fmt.Sprintf(format, args...))
}

func (c *capture) AnnotatedEventf(obj runtime.Object, _ map[string]string, typ, reason, format string, args ...any) {
	c.Eventf(obj, typ, reason, format, args...)
}

// take returns the events recorded since the last take.
func (c *capture) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, e := range c.events {
		out = append(out, e.String())
	}
	c.events = nil
	return out
}

func readyNode(name string, status v1.ConditionStatus) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
		Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{
			Type: v1.NodeReady, Status: status,
			LastHeartbeatTime: metav1.NewTime(now.Add(-time.Minute)), LastTransitionTime: metav1.NewTime(now.Add(-time.Hour)),
		}}},
	}
}

func nodeLease(name string, renewed time.Time) *coordinationv1.Lease {
	t := metav1.NewMicroTime(renewed)
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: v1.NamespaceNodeLease},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &name, RenewTime: &t},
	}
}

func readyPod(name, node string, status v1.ConditionStatus) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
		Spec:       v1.PodSpec{NodeName: node},
		Status: v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{
			{Type: v1.PodReady, Status: status},
		}},
	}
}

// harness is a controller over a fake clientset whose passes a test makes
// itself, at the time of a fake clock.
type harness struct {
	t      *testing.T
	ctx    context.Context
	client *fake.Clientset
	clock  *clocktesting.FakeClock
	c      *Controller
	rec    *capture
	reg    *prometheus.Registry
}

func newHarness(t *testing.T, objs ...runtime.Object) *harness {
	t.Helper()
	return newHarnessOf(t, nil, objs...)
}

// newHarnessOf is newHarness with the legacy mode's settings, when lc is not
// nil: the controller then also lists DaemonSets, and the node events reach
// its evictor as Run's handler delivers them.
func newHarnessOf(t *testing.T, lc *legacy.Config, objs ...runtime.Object) *harness {
	t.Helper()
	h := &harness{t: t, ctx: t.Context(), client: fake.NewClientset(objs...), clock: clocktesting.NewFakeClock(now),
		rec: &capture{}, reg: prometheus.NewRegistry()}
	m, err := NewMetrics(h.reg)
	if err != nil {
		t.Fatal(err)
	}
	f := informers.NewSharedInformerFactory(h.client, 0)
	cfg := Config{Client: h.client, Nodes: f.Core().V1().Nodes(), Pods: f.Core().V1().Pods(),
		Leases: f.Coordination().V1().Leases(), Recorder: h.rec, Metrics: m, Clock: h.clock}
	synced := []cache.InformerSynced{cfg.Nodes.Informer().HasSynced, cfg.Pods.Informer().HasSynced, cfg.Leases.Informer().HasSynced}
	if lc != nil {
		cfg.Legacy, cfg.DaemonSets = lc, f.Apps().V1().DaemonSets()
		synced = append(synced, cfg.DaemonSets.Informer().HasSynced)
	}
	if h.c, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	if lc != nil {
		if _, err := cfg.Nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { h.c.evictor.NodeAdded(obj.(*v1.Node).Name) }, // as Run's handler does
			DeleteFunc: func(obj any) { h.c.evictor.NodeDeleted(obj.(*v1.Node).Name) },
		}); err != nil {
			t.Fatal(err)
		}
	}
	f.Start(h.ctx.Done())
	t.Cleanup(f.Shutdown)
	if !cache.WaitForCacheSync(h.ctx.Done(), synced...) {
		t.Fatal("caches did not sync")
	}
	h.c.startRecording(h.ctx)
	return h
}

// eventually waits, at most 10 s, for the caches to show what cond checks.
func (h *harness) eventually(what string, cond func() bool) {
	h.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			h.t.Fatalf("the caches never showed %s", what)
		}
	}
}

func (h *harness) cachedNode(name string) *v1.Node {
	n, err := h.c.cfg.Nodes.Lister().Get(name)
	if err != nil {
		return nil
	}
	return n
}

// expectEvents compares the events recorded since the last call with want,
// in order but for the pods of one node, which come in the pod cache's
// order.
func (h *harness) expectEvents(when string, want ...string) {
	h.t.Helper()
	got := h.rec.take()
	sortPodRuns(got)
	sortPodRuns(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		h.t.Errorf("%s: events\n\t%s\nwant\n\t%s", when, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// sortPodRuns sorts each run of consecutive pod events.
func sortPodRuns(events []string) {
	for i := 0; i < len(events); {
		j := i
		for j < len(events) && strings.HasPrefix(events[j], "Pod ") {
			j++
		}
		slices.Sort(events[i:j])
		i = max(j, i+1)
	}
}

// failPodStatus makes the first times status writes of a pod fail with err
// (every one if times is negative).
func failPodStatus(client *fake.Clientset, pod string, times int, err error) {
	var mu sync.Mutex
	client.PrependReactor("update", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		u, ok := a.(clienttesting.UpdateAction)
		if !ok || a.GetSubresource() != "status" || u.GetObject().(*v1.Pod).Name != pod {
			return false, nil, nil
		}
		mu.Lock()
		defer mu.Unlock()
		if times == 0 {
			return false, nil, nil
		}
		times--
		return true, nil, err
	})
}

// TestEvents follows three nodes through three passes and checks every
// event upstream's controller records, in its order: RegisteredNode for each
// node first listed; when a node the controller judged Ready stops
// heartbeating, NodeNotReady on it, then a Warning on each pod it tried to
// mark not ready (also when the write failed, not when the pod was gone or
// already not ready); nothing for a node whose kubelet itself posted
// Ready=False; RemovingNode for a node deleted; and the Warning again for a
// pod whose marking is retried.
func TestEvents(t *testing.T) {
	h := newHarness(t,
		readyNode("a", v1.ConditionTrue), nodeLease("a", now),
		readyNode("b", v1.ConditionTrue),
		readyNode("c", v1.ConditionFalse),
		readyPod("on-a", "a", v1.ConditionTrue),
		readyPod("ready", "b", v1.ConditionTrue),
		readyPod("unready", "b", v1.ConditionFalse),
		readyPod("gone", "b", v1.ConditionTrue),
		readyPod("failing", "b", v1.ConditionTrue),
		readyPod("on-c", "c", v1.ConditionTrue),
	)
	failPodStatus(h.client, "gone", -1, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "gone"))
	failPodStatus(h.client, "failing", 1, apierrors.NewInternalError(fmt.Errorf("etcd is slow")))

	h.c.pass(h.ctx)
	h.expectEvents("first pass",
		`Node /a (uid-a): Normal RegisteredNode "Node a event: Registered Node a in Controller"`,
		`Node /b (uid-b): Normal RegisteredNode "Node b event: Registered Node b in Controller"`,
		`Node /c (uid-c): Normal RegisteredNode "Node c event: Registered Node c in Controller"`,
	)

	// A minute later a has renewed its Lease; b and c have been silent for
	// longer than the grace period.
	h.clock.Step(time.Minute)
	if _, err := h.client.CoordinationV1().Leases(v1.NamespaceNodeLease).Update(h.ctx, nodeLease("a", h.clock.Now()), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.eventually("a's renewed Lease", func() bool {
		l, err := h.c.cfg.Leases.Lister().Leases(v1.NamespaceNodeLease).Get("a")
		return err == nil && l.Spec.RenewTime.Time.Equal(h.clock.Now())
	})
	h.c.pass(h.ctx)
	h.expectEvents("second pass",
		`Node /b (uid-b): Normal NodeNotReady "Node b status is now: NodeNotReady"`,
		`Pod ns/ready (uid-ready): Warning NodeNotReady "Node is not ready"`,
		`Pod ns/failing (uid-failing): Warning NodeNotReady "Node is not ready"`,
	)

	// c is deleted; b's pods are marked again, since one write failed.
	if err := h.client.CoreV1().Nodes().Delete(h.ctx, "c", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.eventually("c deleted and b Unknown", func() bool {
		b := h.cachedNode("b")
		return h.cachedNode("c") == nil && b != nil && b.Status.Conditions[0].Status == v1.ConditionUnknown
	})
	h.eventually("pod ready marked not ready", func() bool {
		p, err := h.c.cfg.Pods.Lister().Pods("ns").Get("ready")
		return err == nil && p.Status.Conditions[0].Status == v1.ConditionFalse
	})
	h.c.pass(h.ctx)
	h.expectEvents("third pass",
		`Node /c (uid-c): Normal RemovingNode "Node c event: Removing Node c from Controller"`,
		`Pod ns/failing (uid-failing): Warning NodeNotReady "Node is not ready"`,
	)

	// A pod bound later to b is marked at once, with its event.
	late := readyPod("late", "b", v1.ConditionTrue)
	if _, err := h.client.CoreV1().Pods("ns").Create(h.ctx, late, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := h.c.monitor.PodBound(h.clock.Now(), late).Do(h.ctx, h.c.api)
	if err != nil {
		t.Fatal(err)
	}
	events.Record(h.c.api.recorder, res.Events...) // as podBound does
	h.expectEvents("pod bound to b",
		`Pod ns/late (uid-late): Warning NodeNotReady "Node is not ready"`,
	)
}

// syncBuffer is a log destination safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRunRecordsToTheAPI: without a Recorder, Run sends the events to the
// API server as core/v1 Events with source node-controller, and logs them at
// debug level, until it returns.
func TestRunRecordsToTheAPI(t *testing.T) {
	client := fake.NewClientset(readyNode("n", v1.ConditionTrue))
	f := informers.NewSharedInformerFactory(client, 0)
	var log syncBuffer
	c, err := New(Config{Client: client, Nodes: f.Core().V1().Nodes(), Pods: f.Core().V1().Pods(),
		Leases: f.Coordination().V1().Leases(), Clock: clocktesting.NewFakeClock(now),
		Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	f.Start(ctx.Done())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	var got *v1.Event
	for deadline := time.Now().Add(10 * time.Second); got == nil; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no event written within 10s")
		}
		l, err := client.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err == nil && len(l.Items) > 0 {
			got = &l.Items[0]
		}
	}
	const logged = `msg=event object="Node n" type=Normal reason=RegisteredNode message="Node n event: Registered Node n in Controller"`
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), logged); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no event logged within 10s; log:\n%s", log.String())
		}
	}
	cancel()
	f.Shutdown()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	want := v1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: "n", UID: "uid-n"}
	if got.InvolvedObject != want || got.Type != v1.EventTypeNormal || got.Reason != ReasonRegisteredNode ||
		got.Message != "Node n event: Registered Node n in Controller" || got.Source.Component != EventSource ||
		got.ReportingController != EventSource || got.Namespace != metav1.NamespaceDefault {
		t.Errorf("event = %+v", got)
	}
}

// slowStatusWrites makes every status write of node advance clock by d.
func slowStatusWrites(client *fake.Clientset, clock *clocktesting.FakeClock, node string, d time.Duration) {
	client.PrependReactor("update", "nodes", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if u, ok := a.(clienttesting.UpdateAction); ok && a.GetSubresource() == "status" && u.GetObject().(*v1.Node).Name == node {
			clock.Step(d)
		}
		return false, nil, nil
	})
}

// TestMetrics checks every node_collector_* metric upstream registers, with
// its help, type, labels and buckets: after a pass that turns two of three
// nodes Unknown, one of whose status writes takes 2 s.
func TestMetrics(t *testing.T) {
	h := newHarness(t, readyNode("a", v1.ConditionTrue), nodeLease("a", now), readyNode("b", v1.ConditionTrue), readyNode("c", v1.ConditionFalse))
	h.c.pass(h.ctx)
	slowStatusWrites(h.client, h.clock, "b", 2*time.Second)
	h.clock.Step(time.Minute)
	if _, err := h.client.CoordinationV1().Leases(v1.NamespaceNodeLease).Update(h.ctx, nodeLease("a", h.clock.Now()), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.eventually("a's renewed Lease", func() bool {
		l, err := h.c.cfg.Leases.Lister().Leases(v1.NamespaceNodeLease).Get("a")
		return err == nil && l.Spec.RenewTime.Time.Equal(h.clock.Now())
	})
	h.c.pass(h.ctx)

	// Six node turns (the 2 s one in the 4.096 s bucket), two passes (the
	// second 2 s long).
	const want = `
# HELP node_collector_evictions_total Number of Node evictions that happened since current instance of NodeController started.
# TYPE node_collector_evictions_total counter
node_collector_evictions_total{zone=""} 0
# HELP node_collector_unhealthy_nodes_in_zone Gauge measuring number of not Ready Nodes per zones.
# TYPE node_collector_unhealthy_nodes_in_zone gauge
node_collector_unhealthy_nodes_in_zone{zone=""} 2
# HELP node_collector_update_all_nodes_health_duration_seconds Duration in seconds for NodeController to update the health of all nodes.
# TYPE node_collector_update_all_nodes_health_duration_seconds histogram
node_collector_update_all_nodes_health_duration_seconds_bucket{le="0.01"} 1
node_collector_update_all_nodes_health_duration_seconds_bucket{le="0.04"} 1
node_collector_update_all_nodes_health_duration_seconds_bucket{le="0.16"} 1
node_collector_update_all_nodes_health_duration_seconds_bucket{le="0.64"} 1
node_collector_update_all_nodes_health_duration_seconds_bucket{le="2.56"} 2
node_collector_update_all_nodes_health_duration_seconds_bucket{le="10.24"} 2
node_collector_update_all_nodes_health_duration_seconds_bucket{le="40.96"} 2
node_collector_update_all_nodes_health_duration_seconds_bucket{le="163.84"} 2
node_collector_update_all_nodes_health_duration_seconds_bucket{le="+Inf"} 2
node_collector_update_all_nodes_health_duration_seconds_sum 2
node_collector_update_all_nodes_health_duration_seconds_count 2
# HELP node_collector_update_node_health_duration_seconds Duration in seconds for NodeController to update the health of a single node.
# TYPE node_collector_update_node_health_duration_seconds histogram
node_collector_update_node_health_duration_seconds_bucket{le="0.001"} 5
node_collector_update_node_health_duration_seconds_bucket{le="0.004"} 5
node_collector_update_node_health_duration_seconds_bucket{le="0.016"} 5
node_collector_update_node_health_duration_seconds_bucket{le="0.064"} 5
node_collector_update_node_health_duration_seconds_bucket{le="0.256"} 5
node_collector_update_node_health_duration_seconds_bucket{le="1.024"} 5
node_collector_update_node_health_duration_seconds_bucket{le="4.096"} 6
node_collector_update_node_health_duration_seconds_bucket{le="16.384"} 6
node_collector_update_node_health_duration_seconds_bucket{le="+Inf"} 6
node_collector_update_node_health_duration_seconds_sum 2
node_collector_update_node_health_duration_seconds_count 6
# HELP node_collector_zone_health Gauge measuring percentage of healthy nodes per zone.
# TYPE node_collector_zone_health gauge
node_collector_zone_health{zone=""} 33.333333333333336
# HELP node_collector_zone_size Gauge measuring number of registered Nodes per zones.
# TYPE node_collector_zone_size gauge
node_collector_zone_size{zone=""} 3
`
	if err := testutil.GatherAndCompare(h.reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}

// TestPodBoundRetries: a pod bound to a node the controller judged not ready
// is marked not ready, its event recorded; a failed write is recorded too
// and tried again after a backoff, as upstream does.
func TestPodBoundRetries(t *testing.T) {
	h := newHarness(t, readyNode("b", v1.ConditionTrue), readyPod("late", "b", v1.ConditionTrue))
	h.c.pass(h.ctx)
	h.clock.Step(time.Minute)
	h.c.pass(h.ctx) // b turns Unknown; late is marked with it
	h.eventually("late marked not ready", func() bool {
		p, err := h.c.cfg.Pods.Lister().Pods("ns").Get("late")
		return err == nil && p.Status.Conditions[0].Status == v1.ConditionFalse
	})
	h.rec.take()

	// late is bound again, Ready: its first write fails.
	if _, err := h.client.CoreV1().Pods("ns").UpdateStatus(h.ctx, readyPod("late", "b", v1.ConditionTrue), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.eventually("late ready again", func() bool {
		p, err := h.c.cfg.Pods.Lister().Pods("ns").Get("late")
		return err == nil && p.Status.Conditions[0].Status == v1.ConditionTrue
	})
	failPodStatus(h.client, "late", 1, apierrors.NewInternalError(fmt.Errorf("etcd is slow")))
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Clock: h.clock})
	defer q.ShutDown()
	worked := make(chan struct{})
	go func() { h.c.podWorker(h.ctx, q); close(worked) }()
	q.Add("ns/late")
	marked := func() bool {
		p, err := h.client.CoreV1().Pods("ns").Get(h.ctx, "late", metav1.GetOptions{})
		return err == nil && p.Status.Conditions[0].Status == v1.ConditionFalse
	}
	for deadline := time.Now().Add(10 * time.Second); !marked(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("late never marked not ready")
		}
		h.clock.Step(10 * time.Millisecond) // the backoff's time passes
	}
	q.ShutDown()
	<-worked
	h.expectEvents("late bound to b",
		`Pod ns/late (uid-late): Warning NodeNotReady "Node is not ready"`,
		`Pod ns/late (uid-late): Warning NodeNotReady "Node is not ready"`,
	)
}

// TestNoScheduleRetries: a NoSchedule taint write that the API server
// refuses is tried again with backoff; upstream's worker drops it until the
// node's next update, so a node that stopped posting would stay untainted.
func TestNoScheduleRetries(t *testing.T) {
	h := newHarness(t, readyNode("b", v1.ConditionFalse))
	var mu sync.Mutex
	failures := 2
	h.client.PrependReactor("patch", "nodes", func(a clienttesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		if a.GetSubresource() != "" || failures == 0 {
			return false, nil, nil
		}
		failures--
		return true, nil, apierrors.NewInternalError(fmt.Errorf("etcd is slow"))
	})
	h.eventually("node b", func() bool { return h.cachedNode("b") != nil })
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Clock: h.clock})
	defer q.ShutDown()
	worked := make(chan struct{})
	go func() { h.c.noScheduleWorker(h.ctx, q); close(worked) }()
	q.Add("b")
	tainted := func() bool {
		n, err := h.client.CoreV1().Nodes().Get(h.ctx, "b", metav1.GetOptions{})
		return err == nil && len(n.Spec.Taints) == 1 && n.Spec.Taints[0].Key == v1.TaintNodeNotReady &&
			n.Spec.Taints[0].Effect == v1.TaintEffectNoSchedule
	}
	for deadline := time.Now().Add(10 * time.Second); !tainted(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("b never tainted not-ready:NoSchedule")
		}
		h.clock.Step(10 * time.Millisecond) // the backoff's time passes
	}
	q.ShutDown()
	<-worked
	mu.Lock()
	defer mu.Unlock()
	if failures != 0 {
		t.Errorf("%d injected failures left: the write was not refused twice", failures)
	}
}
