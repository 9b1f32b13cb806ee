package legacy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"maps"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	nl "github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/timedqueue"
)

const (
	tTrue    = v1.ConditionTrue
	tFalse   = v1.ConditionFalse
	tUnknown = v1.ConditionUnknown
)

var t0 = time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func mt(t time.Time) metav1.Time { return metav1.NewTime(t) }

func ptr[T any](v T) *T { return &v }

func readyCond(s v1.ConditionStatus, hb, tr time.Time) v1.NodeCondition {
	return v1.NodeCondition{Type: v1.NodeReady, Status: s, LastHeartbeatTime: mt(hb), LastTransitionTime: mt(tr)}
}

func mkNode(name, zone string, created time.Time, conds ...v1.NodeCondition) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: mt(created), UID: types.UID("uid-" + name),
			Labels: map[string]string{v1.LabelTopologyZone: zone}},
		Status: v1.NodeStatus{Conditions: conds},
	}
}

func findReady(n *v1.Node) *v1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == v1.NodeReady {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// cluster is a test-only v1.26.15 node lifecycle controller in the legacy mode, built from the
// packages' functions one pass at a time (upstream monitorNodeHealth with the taint manager
// off, and doEvictionPass) over the real zone queues on a fake clock. Decisions are taken on
// the observed Ready condition, as v1.26 did.
type cluster struct {
	cfg   nl.Config
	lcfg  Config
	clock *clocktesting.FakeClock

	nodes      map[string]*v1.Node
	leases     map[string]*coordinationv1.Lease
	pods       map[string]*v1.Pod
	daemonSets DaemonSets

	probes    map[string]*nl.Probe
	known     map[string]bool
	zones     map[string]nl.ZoneState
	queues    map[string]*timedqueue.RateLimited[string]
	evictions map[string]EvictionState
	deleted   []string
	last      nl.Disruption
}

func newCluster() *cluster {
	return &cluster{
		cfg: NodeConfig126(), clock: clocktesting.NewFakeClock(t0),
		nodes: map[string]*v1.Node{}, leases: map[string]*coordinationv1.Lease{}, pods: map[string]*v1.Pod{},
		probes: map[string]*nl.Probe{}, known: map[string]bool{}, zones: map[string]nl.ZoneState{},
		queues: map[string]*timedqueue.RateLimited[string]{}, evictions: map[string]EvictionState{},
	}
}

// addNode registers a node in zone z, created at created, Ready True with a heartbeat at hb.
func (c *cluster) addNode(name, z string, created, hb time.Time) {
	c.nodes[name] = mkNode(name, z, created, readyCond(tTrue, hb, created))
	c.renew(name, hb)
	c.evictions[name] = Unmarked
}

// addPod places a Ready pod on a node.
func (c *cluster) addPod(name, node string) {
	c.pods[name] = &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": name}},
		Spec:       v1.PodSpec{NodeName: node},
		Status:     v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: tTrue}}},
	}
}

// kubelet posts a Ready condition with status s and a heartbeat at now, and renews the Lease.
func (c *cluster) kubelet(name string, s v1.ConditionStatus, now time.Time) {
	n := c.nodes[name].DeepCopy()
	r := findReady(n)
	if r.Status != s {
		r.LastTransitionTime = mt(now)
	}
	r.Status, r.LastHeartbeatTime, r.Reason, r.Message = s, mt(now), "", ""
	c.nodes[name] = n
	c.renew(name, now)
	c.noSchedule(name, now)
}

func (c *cluster) renew(name string, now time.Time) {
	m := metav1.NewMicroTime(now)
	c.leases[name] = &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: v1.NamespaceNodeLease, ResourceVersion: now.Format("150405.000000000")},
		Spec:       coordinationv1.LeaseSpec{RenewTime: &m},
	}
}

func (c *cluster) zoneOf(name string) string { return nl.ZoneKey(c.nodes[name]) }

func (c *cluster) ensureZone(z string) {
	if _, ok := c.zones[z]; !ok {
		c.zones[z] = nl.ZoneInitial
		c.queues[z] = timedqueue.NewRateLimited[string](c.cfg.Effective().EvictionRate)
	}
}

func (c *cluster) noSchedule(name string, now time.Time) {
	add, remove := nl.NoScheduleTaints(c.nodes[name])
	if len(add)+len(remove) == 0 {
		return
	}
	n := c.nodes[name].DeepCopy()
	n.Spec.Taints = nl.Swap{Add: add, Remove: remove}.Apply(n.Spec.Taints, now)
	c.nodes[name] = n
}

func (c *cluster) cancel(name string) {
	c.evictions[name], _ = c.evictions[name].Next(EvictionCancel)
	c.queues[c.zoneOf(name)].Remove(name)
}

func (c *cluster) podsOn(name string) []*v1.Pod {
	var out []*v1.Pod
	for _, k := range slices.Sorted(maps.Keys(c.pods)) {
		if c.pods[k].Spec.NodeName == name {
			out = append(out, c.pods[k])
		}
	}
	return out
}

func (c *cluster) deletePods(pods []*v1.Pod, node string) {
	for _, d := range PlanPodDeletion(pods, node, c.daemonSets) {
		if d.NodeLost != nil {
			c.pods[d.Pod.Name] = d.NodeLost
		}
		if d.Fate == PodDelete {
			delete(c.pods, d.Pod.Name)
			c.deleted = append(c.deleted, d.Pod.Name)
		}
	}
}

// carry out the operation of an eviction decision for a node.
func (c *cluster) carry(name string, op EvictionOp, pods []*v1.Pod) {
	q := c.queues[c.zoneOf(name)]
	switch op {
	case OpEnqueue:
		q.Add(c.clock.Now(), name, c.nodes[name].UID)
	case OpDequeue:
		q.Remove(name)
	case OpDeleteNow:
		c.deletePods(pods, name)
	}
}

// pass is one run of v1.26's monitorNodeHealth at now.
func (c *cluster) pass(now time.Time) {
	c.clock.SetTime(now)
	names := slices.Sorted(maps.Keys(c.nodes))
	for _, name := range names {
		c.ensureZone(c.zoneOf(name))
		if !c.known[name] {
			c.known[name] = true
			c.cancel(name)
		}
	}
	counts := map[string]nl.ZoneCounts{}
	for _, name := range names {
		node := c.nodes[name]
		h := nl.Evaluate(node, c.leases[name], c.probes[name], now, c.cfg)
		if h.Status != nil {
			n := node.DeepCopy()
			n.Status = *h.Status
			c.nodes[name] = n
			c.noSchedule(name, now)
			node = c.nodes[name]
		}
		p := h.Saved()
		c.probes[name] = &p
		cnt := counts[nl.ZoneKey(node)]
		cnt.Add(h.Current)
		counts[nl.ZoneKey(node)] = cnt
		if h.Current == nil {
			continue
		}
		e, err := Decide(h.Observed.Status, c.probes[name], now, c.lcfg)
		if err != nil {
			panic(err)
		}
		var op EvictionOp
		c.evictions[name], op = c.evictions[name].Next(e)
		c.carry(name, op, c.podsOn(name))
		if h.BecameNotReady() {
			for _, pod := range c.podsOn(name) {
				if np, ok := nl.MarkPodNotReady(pod, name, now); ok {
					c.pods[pod.Name] = np
				}
			}
		}
	}
	d := nl.HandleDisruption(c.zones, counts, c.cfg)
	c.last = d
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
		c.queues[z].SetRate(c.clock.Now(), d.Rates[z])
	}
	c.zones = d.States
}

// try is one run of v1.26's doEvictionPass at now.
func (c *cluster) try(now time.Time) {
	c.clock.SetTime(now)
	for _, z := range slices.Sorted(maps.Keys(c.queues)) {
		c.queues[z].Try(now, func(v timedqueue.TimedValue[string]) (bool, time.Duration) {
			c.deletePods(c.podsOn(v.Value), v.Value)
			if _, ok := c.nodes[v.Value]; ok {
				c.evictions[v.Value] = Evicted
			}
			return true, 0
		})
	}
}

// podBound is v1.26's processPod for a pod just bound to its node.
func (c *cluster) podBound(podName string, now time.Time) {
	pod := c.pods[podName]
	node := pod.Spec.NodeName
	saved := c.probes[node]
	ready, mark, ok := nl.PodBoundToNode(saved)
	if !ok {
		return
	}
	e, err := Decide(ready, saved, now, c.lcfg)
	if err != nil {
		panic(err)
	}
	var op EvictionOp
	c.evictions[node], op = c.evictions[node].Next(e)
	c.carry(node, op, []*v1.Pod{pod})
	if p, ok := c.pods[podName]; ok && mark {
		if np, changed := nl.MarkPodNotReady(p, node, now); changed {
			c.pods[podName] = np
		}
	}
}

// snapshot is what the step tables compare after each step.
type snapshot struct {
	Ready      v1.ConditionStatus
	NoSchedule []string // keys
	Queued     bool
	Tombstone  bool
	PodReady   v1.ConditionStatus
	State      EvictionState
}

func (c *cluster) snap(name, pod string) snapshot {
	var s snapshot
	n := c.nodes[name]
	if r := findReady(n); r != nil {
		s.Ready = r.Status
	}
	for _, t := range n.Spec.Taints {
		if t.Effect == v1.TaintEffectNoSchedule {
			s.NoSchedule = append(s.NoSchedule, t.Key)
		}
	}
	q := c.queues[c.zoneOf(name)]
	_, s.Queued = q.Get(name)
	s.Tombstone = !s.Queued && q.Has(name)
	if p, ok := c.pods[pod]; ok {
		for _, pc := range p.Status.Conditions {
			if pc.Type == v1.PodReady {
				s.PodReady = pc.Status
			}
		}
	}
	s.State = c.evictions[name]
	return s
}

type simStep struct {
	name string
	at   time.Duration
	act  func(c *cluster, now time.Time)
	want snapshot
}

func passWith(healthy ...string) func(c *cluster, now time.Time) {
	return func(c *cluster, now time.Time) {
		for _, n := range healthy {
			c.kubelet(n, tTrue, now)
		}
		c.pass(now)
	}
}

func tryQueues(c *cluster, now time.Time) { c.try(now) }

func post(node string, s v1.ConditionStatus) func(c *cluster, now time.Time) {
	return func(c *cluster, now time.Time) { c.kubelet(node, s, now) }
}

func daemonSet(ns string, sel *metav1.LabelSelector) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ds"}, Spec: appsv1.DaemonSetSpec{Selector: sel}}
}

func podIn(ns, name, node string, labels map[string]string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec:       v1.PodSpec{NodeName: node},
	}
}

func readyPod(name, node string) *v1.Pod {
	p := podIn("default", name, node, nil)
	p.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: tTrue}}
	return p
}

func runSteps(t *testing.T, c *cluster, node, pod string, steps []simStep) {
	t.Helper()
	for _, st := range steps {
		st.act(c, at(st.at))
		assert.Equal(t, st.want, c.snap(node, pod), "%s (t0+%v)", st.name, st.at)
	}
}
