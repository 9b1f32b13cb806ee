package nodelifecycle

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/taints"
)

// ActionKind says what the controller does about a node's NoExecute taints in one pass.
type ActionKind int

const (
	// NoAction: nothing (Ready missing or an unknown status string).
	NoAction ActionKind = iota
	// SwapToNotReady: Ready is False and the node carries unreachable:NoExecute; write
	// [Action.Swap] at once, bypassing the zone queue.
	SwapToNotReady
	// SwapToUnreachable: Ready is Unknown and the node carries not-ready:NoExecute; write
	// [Action.Swap] at once.
	SwapToUnreachable
	// Enqueue: Ready is False or Unknown; add the node to its zone's rate-limited queue
	// (after removing it first when [Action.ClearTombstone]). The taint is written when the
	// queue hands out the node's token: see [TaintQueued].
	Enqueue
	// Untaint: Ready is True (or the node is seen for the first time, or the cluster enters
	// the all-zones-down mode); write [Action.Swap] (removing whichever NoExecute taint is
	// present), then remove the node from its zone queue, tombstone included.
	Untaint
)

// String returns the kind's name.
func (k ActionKind) String() string {
	switch k {
	case NoAction:
		return "NoAction"
	case SwapToNotReady:
		return "SwapToNotReady"
	case SwapToUnreachable:
		return "SwapToUnreachable"
	case Enqueue:
		return "Enqueue"
	case Untaint:
		return "Untaint"
	}
	return fmt.Sprintf("ActionKind(%d)", int(k))
}

// Action is the NoExecute decision for one node in one pass (upstream
// processTaintBaseEviction).
type Action struct {
	// Kind says what to do.
	Kind ActionKind
	// ClearTombstone, for Enqueue: the node lacks the taint it is queued for, so remove it
	// from the queue first; that clears the tombstone a previous successful taint left, which
	// would otherwise block the add.
	ClearTombstone bool
	// Swap is the taint change to write now, for SwapToNotReady, SwapToUnreachable and
	// Untaint (possibly empty for Untaint).
	Swap Swap
}

// NoExecuteAction returns what the controller does about a node's not-ready and unreachable
// NoExecute taints given its Ready condition: [Health.Current] in v1.37, [Health.Observed] in
// v1.26. Taints are matched by (Key, Effect) on node as read.
//
//	Ready False,   has unreachable → SwapToNotReady
//	Ready False,   otherwise       → Enqueue (ClearTombstone unless it has not-ready)
//	Ready Unknown, has not-ready   → SwapToUnreachable
//	Ready Unknown, otherwise       → Enqueue (ClearTombstone unless it has unreachable)
//	Ready True                     → Untaint
//	nil or another status          → NoAction
func NoExecuteAction(node *v1.Node, ready *v1.NodeCondition) Action {
	if ready == nil {
		return Action{}
	}
	switch ready.Status {
	case v1.ConditionTrue:
		return MarkReachable(node)
	case v1.ConditionFalse, v1.ConditionUnknown:
		want, opposite := noExecuteTaintFor(ready.Status)
		list := taintsOf(node)
		if !taints.Exists(list, &opposite) {
			return Action{Kind: Enqueue, ClearTombstone: !taints.Exists(list, &want)}
		}
		kind := SwapToNotReady
		if ready.Status == v1.ConditionUnknown {
			kind = SwapToUnreachable
		}
		return Action{Kind: kind, Swap: Swap{Add: []v1.Taint{want}, Remove: []v1.Taint{opposite}}}
	}
	return Action{}
}

// noExecuteTaintFor returns the NoExecute taint a node whose Ready status is s (False or
// Unknown) must carry, and the opposite one it must not: not-ready and unreachable for False,
// the reverse for Unknown.
func noExecuteTaintFor(s v1.ConditionStatus) (want, opposite v1.Taint) {
	if s == v1.ConditionFalse {
		return taints.NotReadyNoExecute(), taints.UnreachableNoExecute()
	}
	return taints.UnreachableNoExecute(), taints.NotReadyNoExecute()
}

// taintsOf returns node's taints; none for a nil node.
func taintsOf(node *v1.Node) []v1.Taint {
	if node == nil {
		return nil
	}
	return node.Spec.Taints
}

// MarkReachable returns the Untaint action for node: remove whichever of unreachable:NoExecute and
// not-ready:NoExecute it carries, then remove it from its zone queue (upstream
// markNodeAsReachable). Upstream does this to a node whose Ready is True, to every node it
// sees for the first time (every node after a controller restart, which restarts every pod's
// toleration clock) and to every node when the cluster enters the all-zones-down mode.
func MarkReachable(node *v1.Node) Action {
	a := Action{Kind: Untaint}
	list := taintsOf(node)
	for _, t := range [...]v1.Taint{taints.UnreachableNoExecute(), taints.NotReadyNoExecute()} {
		if taints.Exists(list, &t) {
			a.Swap.Remove = append(a.Swap.Remove, t)
		}
	}
	return a
}

// NoExecuteTaintChanges returns the NoExecute taints a node ends up with for its Ready condition,
// as the taints to add and to remove, once its zone queue has processed it: Ready False →
// not-ready only; Unknown → unreachable only; True → neither; nil or another status → no
// change. add holds only taints the node lacks, remove only taints it has. The result never
// leaves the node with both.
func NoExecuteTaintChanges(node *v1.Node, ready *v1.NodeCondition) (add, remove []v1.Taint) {
	if ready == nil {
		return nil, nil
	}
	switch ready.Status {
	case v1.ConditionTrue:
		return nil, MarkReachable(node).Swap.Remove
	case v1.ConditionFalse, v1.ConditionUnknown:
		want, opposite := noExecuteTaintFor(ready.Status)
		list := taintsOf(node)
		if !taints.Exists(list, &want) {
			add = []v1.Taint{want}
		}
		if taints.Exists(list, &opposite) {
			remove = []v1.Taint{opposite}
		}
	}
	return add, remove
}

// RetryQueued is how long the zone queue waits before retrying a node that had no Ready
// condition or could not be read from the cache (upstream's 50 ms).
const RetryQueued = 50 * time.Millisecond

// QueueStep is the outcome of processing one queued node when its token comes (upstream's
// function passed to the zone queue's Try in doNoExecuteTaintingPass).
type QueueStep struct {
	// Swap is the taint change to write (empty: write nothing). When it is written, the
	// node is done if the write succeeded and retried after 0 (upstream: 1 ns later) if not.
	Swap Swap
	// Done reports that the node leaves the queue (a tombstone stays) without a write.
	Done bool
	// RetryAfter is the wait before the next try when neither Swap nor Done applies.
	RetryAfter time.Duration
}

// TaintQueued returns what the controller does when a queued node's token comes, given the
// node as the cache has it now (nil: gone from the cache): gone → Done; no Ready condition →
// retry after [RetryQueued]; Ready False → add not-ready:NoExecute and remove
// unreachable:NoExecute; Unknown → the reverse; anything else → Done without tainting. One
// token is one node, never one pod.
func TaintQueued(node *v1.Node) QueueStep {
	if node == nil {
		return QueueStep{Done: true}
	}
	ready := findCondition(node.Status.Conditions, v1.NodeReady)
	if ready == nil {
		return QueueStep{RetryAfter: RetryQueued}
	}
	switch ready.Status {
	case v1.ConditionFalse, v1.ConditionUnknown:
		want, opposite := noExecuteTaintFor(ready.Status)
		return QueueStep{Swap: Swap{Add: []v1.Taint{want}, Remove: []v1.Taint{opposite}}}
	}
	return QueueStep{Done: true}
}
