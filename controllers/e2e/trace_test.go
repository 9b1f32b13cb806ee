package e2e

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// event is one change the API server stored, as the trace saw it: a taint
// added or removed, a node's Ready status, a pod marked not ready, given the
// DisruptionTarget condition or deleted, or an Event the node lifecycle or
// taint eviction controller recorded (its first occurrence: repeats only
// raise its count).
type event struct {
	at   time.Time
	what string
	// node is the node the change concerns: the node itself, or the node a
	// pod is bound to; empty for an Event.
	node string
	// tols are a pod's tolerations, as they were when the change was seen.
	tols []v1.Toleration
	// devs are the DRA devices a pod uses through its allocated claims, as
	// the trace's claim cache held them when the change was seen (only when
	// the trace watches DRA objects: watchDRA).
	devs []deviceUse
	// taint is the device taint a device or DeviceTaintRule line adds or
	// removes, with the devices it applies to.
	taint *deviceTaint
	// rv is the resourceVersion of the object version that showed the
	// change (0 when unknown): one etcd's revision, so it orders writes
	// across the separate watches (nodes, pods, Events) whose deliveries
	// may overtake one another.
	rv uint64
}

// trace watches nodes, pods, Events and node Leases and records their
// changes, for judging a run against its own inputs and comparing two runs
// of a scenario. It also measures the run's delays: how long the API server
// takes to show the trace a Lease renewal and a write of its own (the
// write, etcd, the watch), and how late the trace's own process wakes up; a
// loaded machine shows in all three.
type trace struct {
	mu     sync.Mutex
	events []event
	// renewed are, by node, the RenewTimes the API server showed for the
	// node's Lease, oldest first.
	renewed map[string][]time.Time
	// delays are the measured delays, in the order taken.
	delays []delay
	// podDevices, set by watchDRA, returns the devices a pod uses.
	podDevices func(*v1.Pod) []deviceUse
}

// delay is one measurement of how slow the machine is: at is when it was
// taken.
type delay struct {
	at time.Time
	d  time.Duration
}

// probePeriod is how often the trace's probe measures how late it wakes.
const probePeriod = 100 * time.Millisecond

// roundTripPeriod is how often the trace writes to measure how long a write
// takes to come back through a watch.
const roundTripPeriod = 250 * time.Millisecond

func (c *cluster) startTrace(t *testing.T) *trace {
	tr := &trace{renewed: map[string][]time.Time{}}
	f := informers.NewSharedInformerFactory(c.client, 0)
	_, _ = f.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { tr.node(nil, obj.(*v1.Node)) },
		UpdateFunc: func(old, obj any) { tr.node(old.(*v1.Node), obj.(*v1.Node)) },
	})
	_, _ = f.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { tr.pod(nil, obj.(*v1.Pod)) },
		UpdateFunc: func(old, obj any) { tr.pod(old.(*v1.Pod), obj.(*v1.Pod)) },
	})
	_, _ = f.Core().V1().Events().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { tr.recorded(obj.(*v1.Event)) },
	})
	leases := informers.NewSharedInformerFactoryWithOptions(c.client, 0, informers.WithNamespace(v1.NamespaceNodeLease))
	_, _ = leases.Coordination().V1().Leases().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { tr.lease(obj.(*coordinationv1.Lease)) },
		UpdateFunc: func(_, obj any) { tr.lease(obj.(*coordinationv1.Lease)) },
	})
	ctx, cancel := context.WithCancel(c.ctx)
	f.Start(ctx.Done())
	leases.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	leases.WaitForCacheSync(ctx.Done())
	go tr.probe(ctx)
	go tr.roundTrips(ctx, t, c.client)
	t.Cleanup(func() {
		cancel()
		f.Shutdown()
		leases.Shutdown()
	})
	return tr
}

// lease notes a node Lease's renewal and how long the API server took to
// show it.
func (tr *trace) lease(l *coordinationv1.Lease) {
	if l.Spec.RenewTime == nil {
		return
	}
	now, renewed := time.Now(), l.Spec.RenewTime.Time
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if r := tr.renewed[l.Name]; len(r) == 0 || renewed.After(r[len(r)-1]) {
		tr.renewed[l.Name] = append(r, renewed)
		tr.delays = append(tr.delays, delay{at: now, d: max(now.Sub(renewed), 0)})
	}
}

// probe measures, every probePeriod until ctx ends, how late the trace's
// process wakes up.
func (tr *trace) probe(ctx context.Context) {
	tick := time.NewTicker(probePeriod)
	defer tick.Stop()
	next := time.Now().Add(probePeriod)
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			tr.measured(now, time.Since(next))
			next = now.Add(probePeriod)
		}
	}
}

// roundTrips measures, every roundTripPeriod until ctx ends, how long the
// API server takes to show the trace a write: it updates a ConfigMap of its
// own (no controller reads it) and waits for its watch to deliver that
// version. That is the path of every reaction the trace judges (a
// controller's write, etcd, a watch), timed by the write's sender, where a
// Lease renewal's RenewTime is only the time its writer stamped, and the
// scenarios without live nodes renew none. A write that fails, or a watch
// that ends, is measured again at the next period. The ConfigMap stays: the
// cluster goes with the test.
func (tr *trace) roundTrips(ctx context.Context, t *testing.T, client kubernetes.Interface) {
	cms := client.CoreV1().ConfigMaps(metav1.NamespaceDefault)
	cm, err := cms.Create(ctx, &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "evictkit-trace-probe-"}}, metav1.CreateOptions{})
	if err != nil {
		if ctx.Err() == nil {
			t.Errorf("trace: the round-trip probe's ConfigMap: %v", err)
		}
		return
	}
	selector := fields.OneTermEqualSelector("metadata.name", cm.Name).String()
	tick := time.NewTicker(roundTripPeriod)
	defer tick.Stop()
	for seq := 0; ; seq++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		w, err := cms.Watch(ctx, metav1.ListOptions{FieldSelector: selector, ResourceVersion: cm.ResourceVersion})
		if err != nil {
			continue
		}
		cm.Data = map[string]string{"seq": strconv.Itoa(seq)}
		sent := time.Now()
		updated, err := cms.Update(ctx, cm, metav1.UpdateOptions{})
		if err != nil {
			w.Stop()
			if latest, err := cms.Get(ctx, cm.Name, metav1.GetOptions{}); err == nil {
				cm = latest
			}
			continue
		}
		cm = updated
		for e := range w.ResultChan() {
			if got, ok := e.Object.(*v1.ConfigMap); ok && got.ResourceVersion == updated.ResourceVersion {
				tr.measured(time.Now(), time.Since(sent))
				break
			}
		}
		w.Stop()
	}
}

// renewedBefore returns the newest RenewTime before t that the API server
// showed for node's Lease.
func (tr *trace) renewedBefore(node string, t time.Time) (time.Time, bool) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	r := tr.renewed[node]
	for i := len(r) - 1; i >= 0; i-- {
		if r[i].Before(t) {
			return r[i], true
		}
	}
	return time.Time{}, false
}

// measured records a delay d (0 if negative) taken at at.
func (tr *trace) measured(at time.Time, d time.Duration) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.delays = append(tr.delays, delay{at: at, d: max(d, 0)})
}

// lag returns the largest delay measured between from and to.
func (tr *trace) lag(from, to time.Time) time.Duration {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var lag time.Duration
	for _, d := range tr.delays {
		if !d.at.Before(from) && !d.at.After(to) {
			lag = max(lag, d.d)
		}
	}
	return lag
}

func (tr *trace) add(what, node string, tols []v1.Toleration, resourceVersion string) {
	tr.addEvent(event{what: what, node: node, tols: tols}, resourceVersion)
}

// addEvent records e, seen now, written at resourceVersion.
func (tr *trace) addEvent(e event, resourceVersion string) {
	e.rv, _ = strconv.ParseUint(resourceVersion, 10, 64)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	e.at = time.Now()
	tr.events = append(tr.events, e)
}

func taintSet(n *v1.Node) []string {
	if n == nil {
		return nil
	}
	var s []string
	for _, t := range n.Spec.Taints {
		s = append(s, t.Key+":"+string(t.Effect))
	}
	return s
}

func readyOf(n *v1.Node) v1.ConditionStatus {
	if n == nil {
		return ""
	}
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status
		}
	}
	return ""
}

func (tr *trace) node(old, cur *v1.Node) {
	// The Ready condition first: a node's taints follow from it.
	if r := readyOf(cur); r != readyOf(old) && r != "" {
		tr.add("node "+cur.Name+" Ready="+string(r), cur.Name, nil, cur.ResourceVersion)
	}
	was, is := taintSet(old), taintSet(cur)
	for _, k := range is {
		if !slices.Contains(was, k) {
			tr.add("node "+cur.Name+" +"+k, cur.Name, nil, cur.ResourceVersion)
		}
	}
	for _, k := range was {
		if !slices.Contains(is, k) {
			tr.add("node "+cur.Name+" -"+k, cur.Name, nil, cur.ResourceVersion)
		}
	}
}

// tracedSources are the components whose Events the trace records:
// kube-controller-manager's node lifecycle and taint eviction controllers,
// and ours, which record under the same names.
var tracedSources = map[string]bool{"node-controller": true, "taint-eviction-controller": true, "device-taint-eviction-controller": true}

func (tr *trace) recorded(e *v1.Event) {
	if !tracedSources[e.Source.Component] {
		return
	}
	obj := e.InvolvedObject.Name
	if e.InvolvedObject.Namespace != "" {
		obj = e.InvolvedObject.Namespace + "/" + obj
	}
	tr.add(fmt.Sprintf("event %s %s %s: %s %s %q", e.Source.Component, e.InvolvedObject.Kind, obj, e.Type, e.Reason, e.Message), "", nil, e.ResourceVersion)
}

func (tr *trace) pod(old, cur *v1.Pod) {
	name := "pod " + cur.Namespace + "/" + cur.Name
	cond := func(p *v1.Pod, ct v1.PodConditionType) v1.ConditionStatus {
		if p == nil {
			return ""
		}
		if c := podCondition(p, ct); c != nil {
			return c.Status
		}
		return ""
	}
	node, tols := cur.Spec.NodeName, cur.Spec.Tolerations
	tr.mu.Lock()
	devices := tr.podDevices
	tr.mu.Unlock()
	var devs []deviceUse
	if devices != nil {
		devs = devices(cur)
	}
	add := func(what string) {
		tr.addEvent(event{what: what, node: node, tols: tols, devs: devs}, cur.ResourceVersion)
	}
	if old == nil {
		// A pod created on a node already tainted NoExecute is judged from
		// its arrival, not from the taint.
		add(name + " created")
	}
	if r := cond(cur, v1.PodReady); r == v1.ConditionFalse && cond(old, v1.PodReady) == v1.ConditionTrue {
		add(name + " Ready=False")
	}
	if d := cond(cur, v1.DisruptionTarget); d != "" && cond(old, v1.DisruptionTarget) == "" {
		add(name + " DisruptionTarget=" + string(d))
	}
	if cur.DeletionTimestamp != nil && (old == nil || old.DeletionTimestamp == nil) {
		add(name + " deleted")
	}
}

// since returns the events after start whose subject contains one of the
// words, with times relative to start.
func (tr *trace) since(start time.Time, words ...string) []event {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []event
	for _, e := range tr.events {
		if e.at.Before(start) {
			continue
		}
		for _, w := range words {
			if strings.Contains(e.what, w) {
				e.at = time.Time{}.Add(e.at.Sub(start))
				if e.taint != nil {
					dt := *e.taint
					dt.added = time.Time{}.Add(dt.added.Sub(start))
					e.taint = &dt
				}
				out = append(out, e)
				break
			}
		}
	}
	return out
}

func offset(e event) time.Duration { return e.at.Sub(time.Time{}) }

func formatTrace(evs []event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "  %6.2fs %s\n", offset(e).Seconds(), e.what)
	}
	return b.String()
}

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }
