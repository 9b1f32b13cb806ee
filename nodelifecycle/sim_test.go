package nodelifecycle

import (
	"context"
	"maps"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// cluster is a test-only cluster whose node lifecycle controller is a [Monitor]: the kubelet's
// posts and Lease renewals, the per-update NoSchedule pass, and the API writes the Monitor
// asks for, applied to in-memory objects.
type cluster struct {
	m      driven
	nodes  map[string]*v1.Node
	leases map[string]*coordinationv1.Lease
	pods   map[string]*v1.Pod // by name

	writes int
	zones  map[string]ZoneState
	last   PassResult
}

func newCluster(cfg Config) *cluster {
	return &cluster{
		m:     drive(nil, cfg),
		nodes: map[string]*v1.Node{}, leases: map[string]*coordinationv1.Lease{}, pods: map[string]*v1.Pod{},
	}
}

// addNode registers a node in zone z, created at created, Ready True with a heartbeat at hb.
func (c *cluster) addNode(name, z string, created, hb time.Time) {
	n := withLabels(mkNode(name, created, readyCond(v1.ConditionTrue, hb, created)), v1.LabelTopologyZone, z)
	c.nodes[name] = n
	c.leases[name] = mkLease(name, "1", &hb)
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

func (c *cluster) setTaints(name string, s Swap, now time.Time) {
	if s.Empty() {
		return
	}
	n := c.nodes[name].DeepCopy()
	n.Spec.Taints = s.Apply(n.Spec.Taints, now)
	c.nodes[name] = n
	c.noSchedule(name, now) // a node update
}

// noSchedule is the per-update NoSchedule pass.
func (c *cluster) noSchedule(name string, now time.Time) {
	add, remove := NoScheduleTaints(c.nodes[name])
	if len(add)+len(remove) == 0 {
		return
	}
	n := c.nodes[name].DeepCopy()
	n.Spec.Taints = Swap{Add: add, Remove: remove}.Apply(n.Spec.Taints, now)
	c.nodes[name] = n
}

func (c *cluster) podsOn(name string) ([]*v1.Pod, error) {
	var out []*v1.Pod
	for _, k := range slices.Sorted(maps.Keys(c.pods)) {
		if c.pods[k].Spec.NodeName == name {
			out = append(out, c.pods[k])
		}
	}
	return out, nil
}

// pass is one Monitor.Pass at now; the writes it lists are applied as the API server would.
func (c *cluster) pass(now time.Time) {
	var nodes []*v1.Node
	for _, name := range slices.Sorted(maps.Keys(c.nodes)) {
		nodes = append(nodes, c.nodes[name])
	}
	res, err := c.m.Pass(context.Background(), now, PassInput{
		Nodes: nodes,
		Lease: func(name string) *coordinationv1.Lease { return c.leases[name] },
		Pods:  c.podsOn,
	})
	if err != nil {
		panic(err) // no API: nothing can fail
	}
	c.last = res
	// Status writes first (each is its own node update), then the taint writes in order.
	for _, np := range res.Nodes {
		if np.Status != nil {
			n := c.nodes[np.Node.Name].DeepCopy()
			n.Status = *np.Status
			c.nodes[n.Name] = n
			c.writes++
			c.noSchedule(n.Name, now)
		}
		for _, p := range np.PodsNotReady {
			c.pods[p.Name] = p
		}
	}
	for _, w := range res.Taints {
		c.setTaints(w.Node, w.Swap, now)
	}
	c.zones = map[string]ZoneState{}
	for z, s := range c.m.Zones() {
		c.zones[z] = s.State
	}
}

// try is one Monitor.Drain at now.
func (c *cluster) try(now time.Time) {
	ws, err := c.m.Drain(context.Background(), now, func(name string) (*v1.Node, bool) {
		n, ok := c.nodes[name]
		return n, ok
	})
	if err != nil {
		panic(err)
	}
	for _, w := range ws {
		c.setTaints(w.Node, w.Swap, now)
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
	s.Queued, s.Tombstone = c.m.InQueue(c.zoneOf(name), name)
	if p, ok := c.pods[pod]; ok {
		for _, pc := range p.Status.Conditions {
			if pc.Type == v1.PodReady {
				s.PodReady = pc.Status
			}
		}
	}
	return s
}

// readyPod is a pod bound to node with a Ready=True condition.
func readyPod(name, node string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       v1.PodSpec{NodeName: node},
		Status:     v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}},
	}
}
