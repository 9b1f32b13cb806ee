package nodelifecycle

import (
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/taints"
)

// Swap is one taint change the controller writes to a node (upstream
// SwapNodeControllerTaint): first every taint of Add, stamped with TimeAdded, then the
// removal of every taint of Remove (matched by Key and Effect).
type Swap struct {
	Add    []v1.Taint
	Remove []v1.Taint
}

// String returns the change in kubectl taint syntax: each added taint with "+", each removed
// one with "-", or "no change".
func (s Swap) String() string {
	if s.Empty() {
		return "no change"
	}
	parts := make([]string, 0, len(s.Add)+len(s.Remove))
	for _, t := range s.Add {
		parts = append(parts, "+"+taints.Format(t))
	}
	for _, t := range s.Remove {
		parts = append(parts, "-"+taints.Format(t))
	}
	return strings.Join(parts, " ")
}

// Empty reports whether the swap changes nothing.
func (s Swap) Empty() bool { return len(s.Add) == 0 && len(s.Remove) == 0 }

// Apply returns a fresh copy of list with the swap applied at time now, as the API server
// would store it: each taint of Add, with TimeAdded = now, replaces in place the element with
// its (Key, Effect) or is appended (re-adding an existing taint refreshes its TimeAdded); then
// every element matching a taint of Remove is dropped. list is not modified.
func (s Swap) Apply(list []v1.Taint, now time.Time) []v1.Taint {
	if s.Empty() {
		return slices.Clone(list)
	}
	out := list // every step below returns a fresh slice
	for _, t := range s.Add {
		stamp := metav1.NewTime(now)
		t.TimeAdded = &stamp
		out, _ = taints.AddOrUpdate(out, &t)
	}
	for i := range s.Remove {
		out, _ = taints.Remove(out, &s.Remove[i])
	}
	return out
}

// NoScheduleTaints returns the NoSchedule taints the controller adds to and removes from a
// node so that they follow its conditions and spec.unschedulable (upstream
// doNoScheduleTaintingPass, run on every node add or update):
//
//   - wanted: one taint per condition, in list order, as [taints.ForCondition] maps it (Ready
//     False → not-ready, Ready Unknown → unreachable, MemoryPressure, DiskPressure,
//     PIDPressure and NetworkUnavailable True → their key), then unschedulable if
//     spec.unschedulable; empty value;
//   - managed: the node's NoSchedule taints with one of those seven keys; no other taint is
//     ever touched;
//   - add and remove are the difference by (Key, Effect), so a managed taint with a value
//     counts as present and keeps it.
//
// Both are nil when nothing changes. Write them with [Swap.Apply] semantics: the added taints
// get TimeAdded = now.
func NoScheduleTaints(node *v1.Node) (add, remove []v1.Taint) {
	if node == nil {
		return nil, nil
	}
	managed := taints.Filter(node.Spec.Taints, taints.IsConditionTaint)
	return taints.Diff(taints.ConditionTaints(node), managed)
}
