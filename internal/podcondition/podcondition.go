// Package podcondition sets a pod condition as Kubernetes' components do
// (k8s.io/kubernetes pkg/api/v1/pod UpdatePodCondition): the one copy of
// that rule for the packages that write a DisruptionTarget condition.
package podcondition

import v1 "k8s.io/api/core/v1"

// Set puts cond into status, in place of the first condition of its type
// or appended, and reports whether that changes the status. cond keeps the
// lastTransitionTime of the condition it replaces when their statuses are
// equal. A change of observedGeneration alone is no change.
func Set(status *v1.PodStatus, cond v1.PodCondition) bool {
	for i := range status.Conditions {
		old := &status.Conditions[i]
		if old.Type != cond.Type {
			continue
		}
		if old.Status == cond.Status {
			cond.LastTransitionTime = old.LastTransitionTime
		}
		changed := old.Status != cond.Status || old.Reason != cond.Reason || old.Message != cond.Message ||
			!old.LastProbeTime.Equal(&cond.LastProbeTime) || !old.LastTransitionTime.Equal(&cond.LastTransitionTime)
		*old = cond
		return changed
	}
	status.Conditions = append(status.Conditions, cond)
	return true
}
