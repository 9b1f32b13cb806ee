package preemptionplugin

import (
	"slices"
	"sync"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/evictkit/eviction/preemption"
)

// snapshots turns the scheduler's NodeInfos into the library's node
// snapshots on demand, and keeps them from one preemption attempt to the
// next: a snapshot computes each pod's request vector once, and between two
// attempts most nodes are unchanged. A cached snapshot is reused while the
// node's NodeInfo generation, its Node object and the pods nominated to it
// are the same.
//
// The cache holds at most one snapshot per node of the latest attempt (those
// of deleted nodes are dropped at the next attempt); a snapshot of a node
// that changed stays until the node is visited again.
type snapshots struct {
	mu    sync.Mutex
	nodes map[string]cachedNode
	// bufs holds *[]preemption.ChargedPod scratch slices: a snapshot
	// copies what it needs from them.
	bufs sync.Pool
}

type cachedNode struct {
	generation int64
	node       *v1.Node
	nominated  []*v1.Pod
	snap       preemption.NodeSnapshot
}

// source returns the nodes of one attempt, those of infos that have a Node,
// in order, as a [preemption.NodeSource] whose snapshots come from the
// cache or are built when first asked for.
func (s *snapshots) source(infos []fwk.NodeInfo, nominator fwk.PodNominator) *nodeSource {
	if slices.ContainsFunc(infos, func(ni fwk.NodeInfo) bool { return ni.Node() == nil }) {
		infos = slices.DeleteFunc(slices.Clone(infos), func(ni fwk.NodeInfo) bool { return ni.Node() == nil })
	}
	s.mu.Lock()
	if len(s.nodes) > len(infos) {
		live := make(map[string]bool, len(infos))
		for _, ni := range infos {
			live[ni.Node().Name] = true
		}
		for name := range s.nodes {
			if !live[name] {
				delete(s.nodes, name)
			}
		}
	}
	s.mu.Unlock()
	src := &nodeSource{cache: s, infos: infos, nominator: nominator, names: make([]string, len(infos)), codes: make([]preemption.Code, len(infos))}
	for i, ni := range infos {
		src.names[i] = ni.Node().Name
	}
	return src
}

// nodeSource is the [preemption.StatusSource] of one attempt. The caller
// fills codes, the prior statuses, before use.
type nodeSource struct {
	cache     *snapshots
	infos     []fwk.NodeInfo // every one with a Node
	nominator fwk.PodNominator
	names     []string          // infos[i].Node().Name
	codes     []preemption.Code // parallel to infos
}

var _ preemption.StatusSource = (*nodeSource)(nil)

func (n *nodeSource) Len() int                          { return len(n.infos) }
func (n *nodeSource) Name(i int) string                 { return n.names[i] }
func (n *nodeSource) PriorStatus(i int) preemption.Code { return n.codes[i] }

// Snapshot returns the cached snapshot of node i while it is current, and
// builds (and caches) it otherwise. It is safe for concurrent use.
func (n *nodeSource) Snapshot(i int) (preemption.NodeSnapshot, error) {
	ni := n.infos[i]
	node := ni.Node()
	var nominated []*v1.Pod
	for _, pi := range n.nominator.NominatedPodsForNode(node.Name) {
		nominated = append(nominated, pi.GetPod())
	}
	gen := ni.GetGeneration()
	s := n.cache
	s.mu.Lock()
	c, ok := s.nodes[node.Name]
	s.mu.Unlock()
	if ok && c.generation == gen && c.node == node && slices.Equal(c.nominated, nominated) {
		return c.snap, nil
	}
	// The scheduler's cache has computed what each bound pod is charged
	// (NodeInfo sums the same values for NodeResourcesFit); the nominated
	// pods, few and from the queue, are measured here.
	buf, _ := s.bufs.Get().(*[]preemption.ChargedPod)
	if buf == nil {
		buf = new([]preemption.ChargedPod)
	}
	pods := (*buf)[:0]
	for _, pi := range ni.GetPods() {
		pods = append(pods, preemption.ChargedPod{Pod: pi.GetPod(), Charged: charged(pi.CalculateResource().Resource)})
	}
	var nominatedPods []preemption.ChargedPod
	for _, p := range nominated {
		nominatedPods = append(nominatedPods, preemption.ChargedPod{Pod: p, Charged: preemption.AssignedPodRequests(p)})
	}
	snap, err := preemption.NewNodeSnapshotCharged(node, pods, nominatedPods)
	clear(pods) // drop the references to the pods before pooling
	*buf = pods[:0]
	s.bufs.Put(buf)
	if err != nil {
		return preemption.NodeSnapshot{}, err
	}
	s.mu.Lock()
	if s.nodes == nil {
		s.nodes = map[string]cachedNode{}
	}
	s.nodes[node.Name] = cachedNode{generation: gen, node: node, nominated: nominated, snap: snap}
	s.mu.Unlock()
	return snap, nil
}

// charged converts the scheduler's resource vector of a pod.
func charged(r fwk.Resource) preemption.Resources {
	if r == nil {
		return preemption.Resources{}
	}
	return preemption.Resources{
		MilliCPU:         r.GetMilliCPU(),
		Memory:           r.GetMemory(),
		EphemeralStorage: r.GetEphemeralStorage(),
		Scalars:          r.GetScalarResources(),
	}
}
