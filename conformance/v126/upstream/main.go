// Command upstream126 runs Kubernetes v1.26.15's node lifecycle controller with the taint
// manager disabled (--enable-taint-manager=false) through scenarios and prints what it did, for
// the differential test in github.com/evictkit/eviction/conformance/v126.
//
// It reads one JSON scenario per line on stdin and writes one JSON trace per line on stdout.
// The controller is built by NewNodeLifecycleController on a fake clientset and on informers
// that are never started: before each pass the program fills their stores from the clientset.
// Time is a fake clock: the controller's, the zone queues' and their token buckets'.
//
// The program lives in a module of its own because v1.26.15 needs k8s.io/api and
// k8s.io/apimachinery v0.26.15, and the library needs packages that v0.26 does not have.
// Build it after ./setup with GOFLAGS="-overlay=$PWD/overlay.json -trimpath".
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/nodelifecycle"
	"k8s.io/kubernetes/pkg/controller/nodelifecycle/scheduler"
	testingclock "k8s.io/utils/clock/testing"
)

// Scenario is one run: a cluster of Ready nodes created at Start, pods bound to them, and
// steps. The test module declares the same JSON.
type Scenario struct {
	Start                  time.Time
	PodEvictionTimeout     time.Duration
	MonitorGracePeriod     time.Duration
	StartupGracePeriod     time.Duration
	MonitorPeriod          time.Duration
	EvictionQPS            float32
	SecondaryQPS           float32
	LargeClusterThreshold  int32
	UnhealthyZoneThreshold float32
	Nodes                  []Node
	Pods                   []Pod
	Steps                  []Step
}

// Node is a node of a scenario, Ready with a heartbeat at Start.
type Node struct{ Name, Zone string }

// Pod is a Ready pod in namespace default bound to Node; DaemonSet pods carry the label
// the scenario's one DaemonSet selects.
type Pod struct {
	Name, Node string
	DaemonSet  bool
}

// Step is what happens at Start+At: "post" (the kubelet of Node posts Ready=Status and renews
// its Lease), "pass" (a monitor pass) or "evict" (an eviction pass).
type Step struct {
	At           time.Duration
	Kind         string
	Node, Status string
}

// Observation is what the controller holds after a pass or eviction pass.
type Observation struct {
	Step      int
	Deleted   []string            // pods deleted by this step, sorted
	Events    []string            // NodeControllerEviction and DeletingAllPods events, sorted
	Zones     map[string]string   // zone states
	Rates     map[string]float32  // the zone evictors' rates (0: never)
	Queued    map[string][]string // nodes waiting in each zone's evictor
	Processed map[string][]string // nodes each evictor holds as done
	Ready     map[string]string   // each node's Ready status
	Ties      bool                // before an eviction pass: two queued nodes of one zone share a process time
}

// Trace is the answer to one scenario.
type Trace struct {
	Observations []Observation
	Error        string `json:",omitempty"`
}

const dsLabel = "evictkit-ds"

// recorder keeps the events the test compares.
type recorder struct{ events []string }

func (r *recorder) Event(object runtime.Object, eventtype, reason, message string) {
	if reason != "NodeControllerEviction" && reason != "DeletingAllPods" {
		return
	}
	name := "?"
	switch o := object.(type) {
	case *v1.Pod:
		name = "pod/" + o.Namespace + "/" + o.Name
	case *v1.ObjectReference:
		name = strings.ToLower(o.Kind) + "/" + o.Name
	}
	r.events = append(r.events, fmt.Sprintf("%s %s %s %s", name, eventtype, reason, message))
}

func (r *recorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...interface{}) {
	r.Event(object, eventtype, reason, fmt.Sprintf(messageFmt, args...))
}

func (r *recorder) AnnotatedEventf(object runtime.Object, _ map[string]string, eventtype, reason, messageFmt string, args ...interface{}) {
	r.Eventf(object, eventtype, reason, messageFmt, args...)
}

// sortedNodeLister lists nodes in name order, as the test's library side takes them.
type sortedNodeLister struct{ listersv1.NodeLister }

func (l sortedNodeLister) List(sel labels.Selector) ([]*v1.Node, error) {
	nodes, err := l.NodeLister.List(sel)
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	return nodes, err
}

var neverLimiter = reflect.TypeOf(flowcontrol.NewFakeNeverRateLimiter())

type run struct {
	ctx                 context.Context
	sc                  Scenario
	clock               *testingclock.FakeClock
	client              *clientsetfake.Clientset
	nc                  *nodelifecycle.Controller
	nodes, pods, leases cache.Store
	rec                 *recorder
	ours                map[flowcontrol.RateLimiter]bool
}

func runScenario(sc Scenario) (tr Trace) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &run{ctx: ctx, sc: sc, clock: testingclock.NewFakeClock(sc.Start), client: clientsetfake.NewSimpleClientset(),
		rec: &recorder{}, ours: map[flowcontrol.RateLimiter]bool{}}
	scheduler.SetNow(r.clock.Now)
	factory := informers.NewSharedInformerFactory(r.client, 0)
	nodes, pods, leases := factory.Core().V1().Nodes(), factory.Core().V1().Pods(), factory.Coordination().V1().Leases()
	dss := factory.Apps().V1().DaemonSets()
	nc, err := nodelifecycle.NewNodeLifecycleController(ctx, leases, pods, nodes, dss, r.client,
		sc.MonitorPeriod, sc.StartupGracePeriod, sc.MonitorGracePeriod, sc.PodEvictionTimeout,
		sc.EvictionQPS, sc.SecondaryQPS, sc.LargeClusterThreshold, sc.UnhealthyZoneThreshold, false)
	if err != nil {
		return Trace{Error: err.Error()}
	}
	defer nc.Stop()
	nc.SetClock(func() metav1.Time { return metav1.NewTime(r.clock.Now()) })
	nc.SetRecorder(r.rec)
	nc.SetNodeLister(sortedNodeLister{nodes.Lister()})
	r.nc, r.nodes, r.pods, r.leases = nc, nodes.Informer().GetStore(), pods.Informer().GetStore(), leases.Informer().GetStore()
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "ds"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{dsLabel: "yes"}}}}
	if err := dss.Informer().GetStore().Add(ds); err != nil {
		return Trace{Error: err.Error()}
	}

	start := metav1.NewTime(sc.Start)
	for _, n := range sc.Nodes {
		node := &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: types.UID("uid-" + n.Name), CreationTimestamp: start,
				Labels: map[string]string{v1.LabelTopologyZone: n.Zone}},
			Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue,
				LastHeartbeatTime: start, LastTransitionTime: start}}},
		}
		if _, err := r.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			return Trace{Error: err.Error()}
		}
		nc.RegisterNode(n.Name) // the node informer's add handler, which never runs here
		if err := r.renew(n.Name, true); err != nil {
			return Trace{Error: err.Error()}
		}
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
		if _, err := r.client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return Trace{Error: err.Error()}
		}
	}

	for i, st := range sc.Steps {
		r.clock.SetTime(sc.Start.Add(st.At))
		var err error
		switch st.Kind {
		case "post":
			err = r.post(st.Node, v1.ConditionStatus(st.Status))
		case "pass":
			if err = r.sync(); err == nil {
				err = nc.MonitorNodeHealth(ctx)
			}
			r.adoptLimiters()
		case "evict":
			ties := false
			for _, z := range nc.ZonePodEvictors() {
				ties = ties || nc.ZonePodEvictor(z).Ties()
			}
			if err = r.sync(); err == nil {
				nc.DoEvictionPass(ctx)
			}
			if err == nil {
				var o Observation
				o, err = r.observe(i)
				o.Ties = ties
				tr.Observations = append(tr.Observations, o)
			}
		default:
			err = fmt.Errorf("unknown step kind %q", st.Kind)
		}
		if err == nil && st.Kind == "pass" {
			var o Observation
			o, err = r.observe(i)
			tr.Observations = append(tr.Observations, o)
		}
		if err != nil {
			tr.Error = fmt.Sprintf("step %d (%s): %v", i, st.Kind, err)
			return tr
		}
	}
	return tr
}

// adoptLimiters gives every token bucket the controller created in this pass (upstream
// builds them on the wall clock) the fake clock: a bucket made at this instant, full, or
// drained once if the controller drained the one it replaced (SwapLimiter does when the old
// bucket had no token).
func (r *run) adoptLimiters() {
	for _, z := range r.nc.ZonePodEvictors() {
		q := r.nc.ZonePodEvictor(z)
		l := q.Limiter()
		if r.ours[l] || reflect.TypeOf(l) == neverLimiter {
			continue
		}
		drained := !l.TryAccept()
		nl := flowcontrol.NewTokenBucketRateLimiterWithClock(l.QPS(), scheduler.EvictionRateLimiterBurst, r.clock)
		if drained {
			nl.TryAccept()
		}
		l.Stop()
		q.SetLimiter(nl)
		r.ours[nl] = true
	}
}

func (r *run) renew(name string, create bool) error {
	now := metav1.NewMicroTime(r.clock.Now())
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: v1.NamespaceNodeLease, Name: name},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &name, RenewTime: &now},
	}
	var err error
	if create {
		_, err = r.client.CoordinationV1().Leases(v1.NamespaceNodeLease).Create(r.ctx, lease, metav1.CreateOptions{})
	} else {
		_, err = r.client.CoordinationV1().Leases(v1.NamespaceNodeLease).Update(r.ctx, lease, metav1.UpdateOptions{})
	}
	return err
}

// post is the kubelet of a node reporting Ready=s with a heartbeat now, and renewing its Lease.
func (r *run) post(name string, s v1.ConditionStatus) error {
	node, err := r.client.CoreV1().Nodes().Get(r.ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	now := metav1.NewTime(r.clock.Now())
	for i := range node.Status.Conditions {
		c := &node.Status.Conditions[i]
		if c.Type != v1.NodeReady {
			continue
		}
		if c.Status != s {
			c.LastTransitionTime = now
		}
		c.Status, c.LastHeartbeatTime, c.Reason, c.Message = s, now, "", ""
	}
	if _, err := r.client.CoreV1().Nodes().UpdateStatus(r.ctx, node, metav1.UpdateOptions{}); err != nil {
		return err
	}
	return r.renew(name, false)
}

// sync makes the node, pod and lease caches hold what the clientset holds, and notes the
// pods deleted since the last sync.
func (r *run) sync() error {
	nodes, err := r.client.CoreV1().Nodes().List(r.ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	objs := make([]interface{}, len(nodes.Items))
	for i := range nodes.Items {
		objs[i] = &nodes.Items[i]
	}
	if err := r.nodes.Replace(objs, ""); err != nil {
		return err
	}
	pods, err := r.client.CoreV1().Pods("").List(r.ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	objs = make([]interface{}, len(pods.Items))
	for i := range pods.Items {
		objs[i] = &pods.Items[i]
	}
	if err := r.pods.Replace(objs, ""); err != nil {
		return err
	}
	leases, err := r.client.CoordinationV1().Leases(v1.NamespaceNodeLease).List(r.ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	objs = make([]interface{}, len(leases.Items))
	for i := range leases.Items {
		objs[i] = &leases.Items[i]
	}
	return r.leases.Replace(objs, "")
}

func (r *run) observe(step int) (Observation, error) {
	o := Observation{Step: step, Zones: map[string]string{}, Rates: map[string]float32{},
		Queued: map[string][]string{}, Processed: map[string][]string{}, Ready: map[string]string{}}
	for _, a := range r.client.Actions() {
		if a.GetVerb() == "delete" && a.GetResource().Resource == "pods" {
			o.Deleted = append(o.Deleted, a.(interface{ GetName() string }).GetName())
		}
	}
	r.client.ClearActions()
	sort.Strings(o.Deleted)
	o.Events = append(o.Events, r.rec.events...)
	sort.Strings(o.Events)
	r.rec.events = nil
	for z, s := range r.nc.ZoneStates() {
		o.Zones[z] = string(s)
	}
	for _, z := range r.nc.ZonePodEvictors() {
		q := r.nc.ZonePodEvictor(z)
		l := q.Limiter()
		if reflect.TypeOf(l) == neverLimiter {
			o.Rates[z] = 0
		} else {
			o.Rates[z] = l.QPS()
		}
		o.Queued[z], o.Processed[z] = q.Contents()
	}
	nodes, err := r.client.CoreV1().Nodes().List(r.ctx, metav1.ListOptions{})
	if err != nil {
		return o, err
	}
	for _, n := range nodes.Items {
		for _, c := range n.Status.Conditions {
			if c.Type == v1.NodeReady {
				o.Ready[n.Name] = string(c.Status)
			}
		}
	}
	return o, nil
}

func serve(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		var s Scenario
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return fmt.Errorf("scenario: %w", err)
		}
		if err := enc.Encode(runScenario(s)); err != nil {
			return err
		}
		if f, ok := out.(*bufio.Writer); ok {
			if err := f.Flush(); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

func main() {
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "upstream126:", err)
		os.Exit(1)
	}
}
