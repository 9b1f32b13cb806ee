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

func newPodEntry(p *v1.Pod) podEntry {
	e := podEntry{pod: p, req: chargedVector(p), priority: podresources.Priority(p)}
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
	if node == nil {
		return NodeSnapshot{}, fmt.Errorf("preemption: nil node: %w", ErrInvalidInput)
	}
	if node.Name == "" {
		return NodeSnapshot{}, fmt.Errorf("preemption: node without a name: %w", ErrInvalidInput)
	}
	s := NodeSnapshot{node: node}
	alloc := listVector(node.Status.Allocatable)
	s.alloc = alloc
	if q, ok := node.Status.Allocatable[v1.ResourcePods]; ok {
		s.allowedPods = int(q.Value())
	}
	s.pods = make([]podEntry, len(pods))
	for i, p := range pods {
		if p == nil {
			return NodeSnapshot{}, fmt.Errorf("preemption: node %q: pod %d is nil: %w", node.Name, i, ErrInvalidInput)
		}
		s.pods[i] = newPodEntry(p)
		e := &s.pods[i]
		s.requested.cpu += e.req.cpu
		s.requested.mem += e.req.mem
		s.requested.eph += e.req.eph
		s.requested.scalars = addScalars(s.requested.scalars, e.req.scalars)
	}
	if len(nominated) > 0 {
		s.nominated = make([]podEntry, len(nominated))
		for i, p := range nominated {
			if p == nil {
				return NodeSnapshot{}, fmt.Errorf("preemption: node %q: nominated pod %d is nil: %w", node.Name, i, ErrInvalidInput)
			}
			s.nominated[i] = newPodEntry(p)
		}
	}
	return s, nil
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
