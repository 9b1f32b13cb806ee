package preemption

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/podresources"
)

// NodeSnapshot is one node as the scheduler's snapshot sees it: its
// allocatable resources, the pods bound or assumed on it (terminating ones
// included) and the pods nominated to it that are not bound yet. Every pod's
// request vector, priority and start time are computed once, by
// [NewNodeSnapshot]; a NodeSnapshot is immutable afterwards and is cheap to
// copy and safe to share between goroutines.
//
// The pods are taken to run on the node whatever their spec.nodeName says,
// and the preemptor is assumed not to be among them.
type NodeSnapshot struct {
	node        *v1.Node
	alloc       vector
	allowedPods int
	pods        []podEntry
	nominated   []podEntry
	requested   vector
}

// podEntry is a pod with the values the algorithm reads, computed once.
type podEntry struct {
	pod      *v1.Pod
	req      vector
	priority int32
	start    time.Time
	started  bool // status.startTime was set
}

func newPodEntry(p *v1.Pod, req vector) podEntry {
	e := podEntry{pod: p, req: req, priority: podresources.Priority(p)}
	if p.Status.StartTime != nil {
		e.start, e.started = p.Status.StartTime.Time, true
	}
	return e
}

// startAt returns the pod's start time, reading a missing one as now.
func (e *podEntry) startAt(now time.Time) time.Time {
	if e.started {
		return e.start
	}
	return now
}

// NewNodeSnapshot builds the snapshot of node with the given bound pods and
// nominated pods. The node and the pods are kept by reference and never
// modified. It fails with [ErrInvalidInput] when node is nil or unnamed or a
// pod is nil.
func NewNodeSnapshot(node *v1.Node, pods, nominated []*v1.Pod) (NodeSnapshot, error) {
	s, err := newNodeSnapshot(node, len(pods), len(nominated))
	if err != nil {
		return NodeSnapshot{}, err
	}
	for i, p := range pods {
		if p == nil {
			return NodeSnapshot{}, fmt.Errorf("preemption: node %q: pod %d is nil: %w", node.Name, i, ErrInvalidInput)
		}
		s.addPod(i, p, chargedVector(p))
	}
	for i, p := range nominated {
		if p == nil {
			return NodeSnapshot{}, fmt.Errorf("preemption: node %q: nominated pod %d is nil: %w", node.Name, i, ErrInvalidInput)
		}
		s.nominated[i] = newPodEntry(p, chargedVector(p))
	}
	return s, nil
}

// ChargedPod is a pod on a node with what the node is charged for it,
// computed by the caller: kube-scheduler's cache computes it once per pod
// (PodInfo.CalculateResource), as [AssignedPodRequests] does here.
type ChargedPod struct {
	// Pod is the pod, kept by reference and never modified.
	Pod *v1.Pod
	// Charged is what the pod is charged on the node; Charged.Pods is
	// ignored and only the scalar resources the scheduler tracks count
	// (those [AssignedPodRequests] reports).
	Charged Resources
}

// NewNodeSnapshotCharged is [NewNodeSnapshot] for a caller that already
// knows what each pod is charged, such as a scheduler plugin reading
// kube-scheduler's NodeInfo: the request vectors are taken from pods and
// nominated instead of computed from the pods' specs and statuses. It fails
// with [ErrInvalidInput] when node is nil or unnamed or a pod is nil.
func NewNodeSnapshotCharged(node *v1.Node, pods, nominated []ChargedPod) (NodeSnapshot, error) {
	s, err := newNodeSnapshot(node, len(pods), len(nominated))
	if err != nil {
		return NodeSnapshot{}, err
	}
	for i, p := range pods {
		if p.Pod == nil {
			return NodeSnapshot{}, fmt.Errorf("preemption: node %q: pod %d is nil: %w", node.Name, i, ErrInvalidInput)
		}
		s.addPod(i, p.Pod, resourcesVector(p.Charged))
	}
	for i, p := range nominated {
		if p.Pod == nil {
			return NodeSnapshot{}, fmt.Errorf("preemption: node %q: nominated pod %d is nil: %w", node.Name, i, ErrInvalidInput)
		}
		s.nominated[i] = newPodEntry(p.Pod, resourcesVector(p.Charged))
	}
	return s, nil
}

// newNodeSnapshot checks node and makes room for the pods.
func newNodeSnapshot(node *v1.Node, numPods, numNominated int) (NodeSnapshot, error) {
	if node == nil {
		return NodeSnapshot{}, fmt.Errorf("preemption: nil node: %w", ErrInvalidInput)
	}
	if node.Name == "" {
		return NodeSnapshot{}, fmt.Errorf("preemption: node without a name: %w", ErrInvalidInput)
	}
	s := NodeSnapshot{node: node, alloc: listVector(node.Status.Allocatable)}
	if q, ok := node.Status.Allocatable[v1.ResourcePods]; ok {
		s.allowedPods = int(q.Value())
	}
	s.pods = make([]podEntry, numPods)
	if numNominated > 0 {
		s.nominated = make([]podEntry, numNominated)
	}
	return s, nil
}

// addPod sets bound pod i and charges the node for it.
func (s *NodeSnapshot) addPod(i int, p *v1.Pod, req vector) {
	s.pods[i] = newPodEntry(p, req)
	s.requested.cpu += req.cpu
	s.requested.mem += req.mem
	s.requested.eph += req.eph
	s.requested.scalars = addScalars(s.requested.scalars, req.scalars)
}

// Name returns the node's name ("" for the zero NodeSnapshot).
func (s *NodeSnapshot) Name() string {
	if s.node == nil {
		return ""
	}
	return s.node.Name
}

// Node returns the node object the snapshot was built from.
func (s *NodeSnapshot) Node() *v1.Node { return s.node }

// Pods returns the pods bound to the node, in snapshot order. The slice is
// new; the pods are the caller's.
func (s *NodeSnapshot) Pods() []*v1.Pod { return entryPods(s.pods) }

// NominatedPods returns the pods nominated to the node, in snapshot order.
func (s *NodeSnapshot) NominatedPods() []*v1.Pod { return entryPods(s.nominated) }

// Allocatable returns the node's allocatable resources, including the pod
// count limit (0 when status.allocatable has no "pods" entry, so that no pod
// fits).
func (s *NodeSnapshot) Allocatable() Resources {
	r := s.alloc.export()
	r.Pods = int64(s.allowedPods)
	return r
}

// Requested returns the sum of what the bound pods are charged (see
// [AssignedPodRequests]); nominated pods are not included.
func (s *NodeSnapshot) Requested() Resources { return s.requested.export() }

func entryPods(es []podEntry) []*v1.Pod {
	if len(es) == 0 {
		return nil
	}
	out := make([]*v1.Pod, len(es))
	for i := range es {
		out[i] = es[i].pod
	}
	return out
}
