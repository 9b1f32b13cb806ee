package preemption

import "fmt"

// NodeSource gives the nodes of one decision by index, so that
// [EvaluateSource] prepares the snapshot only of the nodes it looks at: with
// [Options.PriorStatus] set, the nodes the dry run visits (about
// [Sampling.NumCandidates] of the potential nodes, and with w
// [Options.Workers] at most w-1 more that were in flight when it stopped),
// the preemptor's nominated node, and the chosen one. Without PriorStatus
// every node is checked, so every snapshot is asked for.
//
// [Snapshots] is the source over snapshots already prepared.
type NodeSource interface {
	// Len returns the number of nodes.
	Len() int
	// Name returns the name of node i, 0 ≤ i < Len(): non-empty and
	// unique among the nodes of the source. It is called for every node.
	Name(i int) string
	// Snapshot returns the snapshot of node i, whose Name must be
	// Name(i). It may be called from several goroutines at once (when
	// [Options.Workers] is not 1), and more than once for the same node.
	// An error makes the node fail its evaluation, as a node whose
	// evaluation fails upstream: it is not a candidate, and when no node is
	// one the decision fails with [ErrNodeEvaluation].
	Snapshot(i int) (NodeSnapshot, error)
}

// StatusSource is a [NodeSource] that also gives the prior status of each
// node, as [Options.PriorStatus] gives it by name: only [Unschedulable]
// nodes are considered for preemption. A caller that holds the statuses by
// node index saves a map of the whole cluster per call.
type StatusSource interface {
	NodeSource
	// PriorStatus returns the status of node i, 0 ≤ i < Len(), in the
	// failed scheduling pass.
	PriorStatus(i int) Code
}

// Snapshots is a [NodeSource] over snapshots already prepared, in order.
type Snapshots []NodeSnapshot

var _ NodeSource = Snapshots(nil)

// Len returns len(s).
func (s Snapshots) Len() int { return len(s) }

// Name returns s[i].Name() ("" for the zero NodeSnapshot, which
// [EvaluateSource] rejects).
func (s Snapshots) Name(i int) string { return s[i].Name() }

// Snapshot returns s[i]; it never fails.
func (s Snapshots) Snapshot(i int) (NodeSnapshot, error) { return s[i], nil }

// nodeSnapshot asks src for the snapshot of node i and checks that it is the
// snapshot of that node. The error names the node and wraps the source's
// error, or [ErrInvalidInput] for the snapshot of another node.
func nodeSnapshot(src NodeSource, i int) (NodeSnapshot, error) {
	name := src.Name(i)
	s, err := src.Snapshot(i)
	if err != nil {
		return NodeSnapshot{}, fmt.Errorf("preemption: node %q: %w", name, err)
	}
	if got := s.Name(); got != name {
		return NodeSnapshot{}, fmt.Errorf("preemption: node %q: the source gave the snapshot of node %q: %w", name, got, ErrInvalidInput)
	}
	return s, nil
}

// indexOf returns the index of the node named name in src: a scan, as only
// a couple of names are looked up per decision.
func indexOf(src NodeSource, name string) (int, bool) {
	for i := range src.Len() {
		if src.Name(i) == name {
			return i, true
		}
	}
	return 0, false
}
