package nodelifecycle

import (
	"maps"
	"slices"
	"time"

	"golang.org/x/time/rate"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// simQueue is a test-only model of a zone's rate-limited queue (timedqueue.md §3 and L1–L8):
// FIFO among equal due times, tombstones after a successful try, a token bucket of burst 1 on
// the caller's time. The real one lives in package timedqueue, which this package must not
// import.
type simQueue struct {
	items  []simItem
	queued map[string]bool
	tomb   map[string]bool
	lim    *rate.Limiter // nil: stopped
	qps    float32
}

type simItem struct {
	name      string
	processAt time.Time
}

func newSimQueue(qps float32) *simQueue {
	q := &simQueue{queued: map[string]bool{}, tomb: map[string]bool{}, qps: qps}
	if qps > 0 {
		q.lim = rate.NewLimiter(rate.Limit(qps), 1)
	}
	return q
}

func (q *simQueue) Add(name string, now time.Time) bool {
	if q.queued[name] || q.tomb[name] {
		return false
	}
	q.queued[name] = true
	q.insert(simItem{name: name, processAt: now})
	return true
}

func (q *simQueue) Remove(name string) bool {
	was := q.queued[name] || q.tomb[name]
	delete(q.queued, name)
	delete(q.tomb, name)
	q.items = slices.DeleteFunc(q.items, func(it simItem) bool { return it.name == name })
	return was
}

func (q *simQueue) SetRate(qps float32, now time.Time) {
	if qps == q.qps {
		return
	}
	old := q.lim
	q.qps = qps
	if qps <= 0 {
		q.lim = nil
		return
	}
	q.lim = rate.NewLimiter(rate.Limit(qps), 1)
	if old == nil || !old.AllowN(now, 1) {
		q.lim.AllowN(now, 1) // the old bucket was empty: the new one starts empty
	}
}

func (q *simQueue) Try(now time.Time, fn func(name string) (bool, time.Duration)) {
	for len(q.items) > 0 {
		if q.lim == nil || !q.lim.AllowN(now, 1) {
			return
		}
		head := q.items[0]
		if now.Before(head.processAt) {
			return
		}
		done, wait := fn(head.name)
		q.items = q.items[1:]
		if done {
			delete(q.queued, head.name)
			q.tomb[head.name] = true
			continue
		}
		head.processAt = now.Add(wait + time.Nanosecond)
		q.insert(head)
	}
}

// insert keeps items ordered by processAt, FIFO among equal times.
func (q *simQueue) insert(it simItem) {
	i, _ := slices.BinarySearchFunc(q.items, it, func(e, target simItem) int {
		if e.processAt.After(target.processAt) {
			return 1
		}
		return -1
	})
	q.items = slices.Insert(q.items, i, it)
}

// cluster is a test-only node lifecycle controller built from the package's pure functions,
// one pass at a time (upstream monitorNodeHealth, doNoExecuteTaintingPass, doEvictionPass).
type cluster struct {
	cfg    Config
	v126   bool // decisions on the observed Ready (v1.26) instead of the current one (v1.37)
	legacy bool // --enable-taint-manager=false (v1.26)

	nodes      map[string]*v1.Node
	leases     map[string]*coordinationv1.Lease
	pods       map[string]*v1.Pod // by name
	daemonSets []*appsv1.DaemonSet

	probes    map[string]*Probe
	known     map[string]bool
	zones     map[string]ZoneState
	queues    map[string]*simQueue
	evictions map[string]EvictionState
	deleted   []string
	writes    int
	last      Disruption
}

func newCluster(cfg Config) *cluster {
	return &cluster{
		cfg: cfg, nodes: map[string]*v1.Node{}, leases: map[string]*coordinationv1.Lease{}, pods: map[string]*v1.Pod{},
		probes: map[string]*Probe{}, known: map[string]bool{}, zones: map[string]ZoneState{},
		queues: map[string]*simQueue{}, evictions: map[string]EvictionState{},
	}
}

// addNode registers a node in zone z, created at created, Ready True with a heartbeat at hb.
func (c *cluster) addNode(name, z string, created, hb time.Time) {
	n := withLabels(mkNode(name, created, readyCond(v1.ConditionTrue, hb, created)), v1.LabelTopologyZone, z)
	c.nodes[name] = n
	c.leases[name] = mkLease(name, "1", &hb)
	c.evictions[name] = Unmarked
}

// addPod places a Ready pod on a node.
func (c *cluster) addPod(name, node string) {
	c.pods[name] = &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": name}},
		Spec:       v1.PodSpec{NodeName: node},
		Status:     v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}},
	}
}

// kubelet posts a Ready condition with status s and a heartbeat at now, and renews the Lease.
func (c *cluster) kubelet(name string, s v1.ConditionStatus, now time.Time) {
	n := c.nodes[name].DeepCopy()
	r := findCondition(n.Status.Conditions, v1.NodeReady)
	if r.Status != s {
		r.LastTransitionTime = mt(now)
	}
	r.Status, r.LastHeartbeatTime, r.Reason, r.Message = s, mt(now), "", ""
	c.nodes[name] = n
	c.renew(name, now)
	c.noSchedule(name, now)
}

// renew renews a node's Lease at now.
func (c *cluster) renew(name string, now time.Time) {
	l := c.leases[name].DeepCopy()
	m := metav1.NewMicroTime(now)
	l.Spec.RenewTime = &m
	l.ResourceVersion = now.Format("150405.000000000")
	c.leases[name] = l
}

func (c *cluster) zoneOf(name string) string { return ZoneKey(c.nodes[name]) }

func (c *cluster) ensureZone(z string) {
	if _, ok := c.zones[z]; !ok {
		c.zones[z] = ZoneInitial
		c.queues[z] = newSimQueue(c.cfg.EvictionRate)
	}
}

func (c *cluster) setTaints(name string, s Swap, now time.Time) {
	if s.Empty() {
		return
	}
	n := c.nodes[name].DeepCopy()
	n.Spec.Taints = s.Apply(n.Spec.Taints, now)
	c.nodes[name] = n
}

// noSchedule is the per-update NoSchedule pass.
func (c *cluster) noSchedule(name string, now time.Time) {
	add, remove := NoScheduleTaints(c.nodes[name])
	c.setTaints(name, Swap{Add: add, Remove: remove}, now)
}

func (c *cluster) markReachable(name string, now time.Time) {
	if c.legacy {
		c.evictions[name], _ = c.evictions[name].Next(EvictionCancel)
	} else {
		c.setTaints(name, MarkReachable(c.nodes[name]).Swap, now)
	}
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

// pass is one run of monitorNodeHealth at now.
func (c *cluster) pass(now time.Time) {
	names := slices.Sorted(maps.Keys(c.nodes))
	for _, name := range names {
		c.ensureZone(c.zoneOf(name))
		if !c.known[name] {
			c.known[name] = true
			c.markReachable(name, now)
		}
	}
	counts := map[string]ZoneCounts{}
	for _, name := range names {
		node := c.nodes[name]
		h := Evaluate(node, c.leases[name], c.probes[name], now, c.cfg)
		if h.Verdict == NeedsLeaseCheck {
			live := LiveLease{}
			if l := c.leases[name]; l != nil {
				live = LiveLease{Found: true, ResourceVersion: l.ResourceVersion}
			}
			h = EvaluateWithLiveLease(node, c.leases[name], c.probes[name], live, now, c.cfg)
		}
		if h.Verdict == Skipped {
			p := h.Probe
			c.probes[name] = &p
			continue
		}
		if h.Status != nil {
			n := node.DeepCopy()
			n.Status = *h.Status
			c.nodes[name] = n
			node = n
			c.writes++
			c.noSchedule(name, now)
			node = c.nodes[name]
		}
		p := h.Saved(true)
		c.probes[name] = &p
		if !ExcludedFromDisruption(node) {
			cnt := counts[ZoneKey(node)]
			cnt.Add(h.Current)
			counts[ZoneKey(node)] = cnt
		}
		if h.Current == nil {
			continue
		}
		decide := h.Current
		if c.v126 {
			decide = &h.Observed
		}
		q := c.queues[ZoneKey(node)]
		if c.legacy {
			pe, err := LegacyPodEviction(decide.Status, c.probes[name], now, c.cfg)
			if err != nil {
				panic(err)
			}
			var op EvictionOp
			c.evictions[name], op = c.evictions[name].Next(pe)
			switch op {
			case OpEnqueue:
				q.Add(name, now)
			case OpDequeue:
				q.Remove(name)
			case OpDeleteNow:
				c.deletePods(c.podsOn(name), name)
			}
		} else {
			a := NoExecuteAction(node, decide)
			switch a.Kind {
			case SwapToNotReady, SwapToUnreachable:
				c.setTaints(name, a.Swap, now)
			case Enqueue:
				if a.ClearTombstone {
					q.Remove(name)
				}
				q.Add(name, now)
			case Untaint:
				c.setTaints(name, a.Swap, now)
				q.Remove(name)
			}
		}
		if h.BecameNotReady() {
			for _, pod := range c.podsOn(name) {
				if np, ok := MarkPodNotReady(pod, name, now); ok {
					c.pods[pod.Name] = np
				}
			}
		}
	}
	d := HandleDisruption(c.zones, counts, c.cfg)
	c.last = d
	if d.Entered {
		for _, name := range names {
			c.markReachable(name, now)
		}
	}
	if d.Exited {
		for _, name := range names {
			p := ResetProbe(c.probes[name], now)
			c.probes[name] = &p
		}
	}
	for _, z := range slices.Sorted(maps.Keys(d.Rates)) {
		c.queues[z].SetRate(d.Rates[z], now)
	}
	c.zones = d.States
}

// try is one run of the zone queues' Try at now.
func (c *cluster) try(now time.Time) {
	for _, z := range slices.Sorted(maps.Keys(c.queues)) {
		c.queues[z].Try(now, func(name string) (bool, time.Duration) {
			node, ok := c.nodes[name]
			if c.legacy {
				c.deletePods(c.podsOn(name), name)
				if ok {
					c.evictions[name] = Evicted
				}
				return true, 0
			}
			if !ok {
				node = nil
			}
			step := TaintQueued(node)
			if !step.Swap.Empty() {
				c.setTaints(name, step.Swap, now)
				return true, 0
			}
			return step.Done, step.RetryAfter
		})
	}
}

// snapshot is what the step tables compare after each step.
type snapshot struct {
	Ready      v1.ConditionStatus
	NoExecute  []string // keys
	NoSchedule []string // keys
	Queued     bool
	Tombstone  bool
	PodReady   v1.ConditionStatus
	State      EvictionState
}

func (c *cluster) snap(name, pod string) snapshot {
	var s snapshot
	n := c.nodes[name]
	if r := findCondition(n.Status.Conditions, v1.NodeReady); r != nil {
		s.Ready = r.Status
	}
	for _, t := range n.Spec.Taints {
		switch t.Effect {
		case v1.TaintEffectNoExecute:
			s.NoExecute = append(s.NoExecute, t.Key)
		case v1.TaintEffectNoSchedule:
			s.NoSchedule = append(s.NoSchedule, t.Key)
		}
	}
	q := c.queues[c.zoneOf(name)]
	s.Queued, s.Tombstone = q.queued[name], q.tomb[name]
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

// podBound is upstream processPod for a pod just bound to its node.
func (c *cluster) podBound(podName string, now time.Time) {
	pod := c.pods[podName]
	node := pod.Spec.NodeName
	saved := c.probes[node]
	ready, mark, ok := PodBoundToNode(saved)
	if !ok {
		return
	}
	if c.legacy {
		pe, err := LegacyPodEviction(ready, saved, now, c.cfg)
		if err != nil {
			panic(err)
		}
		var op EvictionOp
		c.evictions[node], op = c.evictions[node].Next(pe)
		q := c.queues[c.zoneOf(node)]
		switch op {
		case OpEnqueue:
			q.Add(node, now)
		case OpDequeue:
			q.Remove(node)
		case OpDeleteNow:
			c.deletePods([]*v1.Pod{pod}, node)
		}
	}
	if p, ok := c.pods[podName]; ok && mark {
		if np, changed := MarkPodNotReady(p, node, now); changed {
			c.pods[podName] = np
		}
	}
}

// readyPod is a pod bound to node with a Ready=True condition.
func readyPod(name, node string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       v1.PodSpec{NodeName: node},
		Status:     v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}},
	}
}
