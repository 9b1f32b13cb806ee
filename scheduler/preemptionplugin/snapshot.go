package preemptionplugin

import (
	"slices"
	"sync"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/evictkit/eviction/preemption"
)

// snapshots turns the scheduler's NodeInfos into the library's node
// snapshots, reusing from one preemption attempt to the next the snapshot of
// every node whose NodeInfo generation and nominated pods have not changed:
// a snapshot computes each pod's request vector once, and between two
// attempts most nodes are unchanged.
type snapshots struct {
	mu    sync.Mutex
	nodes map[string]cachedNode
}

type cachedNode struct {
	generation int64
	node       *v1.Node
	nominated  []*v1.Pod
	snap       preemption.NodeSnapshot
}

// build returns one snapshot per NodeInfo, in the same order. The cache keeps
// only the nodes of the latest call.
func (s *snapshots) build(infos []fwk.NodeInfo, nominator fwk.PodNominator) ([]preemption.NodeSnapshot, error) {
	out := make([]preemption.NodeSnapshot, len(infos))
	next := make(map[string]cachedNode, len(infos))
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, ni := range infos {
		node := ni.Node()
		if node == nil {
			continue
		}
		var nominated []*v1.Pod
		for _, pi := range nominator.NominatedPodsForNode(node.Name) {
			nominated = append(nominated, pi.GetPod())
		}
		if c, ok := s.nodes[node.Name]; ok && c.generation == ni.GetGeneration() && c.node == node && slices.Equal(c.nominated, nominated) {
			out[i] = c.snap
			next[node.Name] = c
			continue
		}
		infosPods := ni.GetPods()
		pods := make([]*v1.Pod, len(infosPods))
		for j, pi := range infosPods {
			pods[j] = pi.GetPod()
		}
		snap, err := preemption.NewNodeSnapshot(node, pods, nominated)
		if err != nil {
			return nil, err
		}
		out[i] = snap
		next[node.Name] = cachedNode{generation: ni.GetGeneration(), node: node, nominated: nominated, snap: snap}
	}
	s.nodes = next
	return compact(out), nil
}

// compact drops the zero snapshots of NodeInfos without a node.
func compact(s []preemption.NodeSnapshot) []preemption.NodeSnapshot {
	return slices.DeleteFunc(s, func(n preemption.NodeSnapshot) bool { return n.Node() == nil })
}
