package nodelifecycle

import (
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodBindingChanged reports whether a pod update binds the pod to a node: newPod has a node
// name and oldPod is nil (an add) or had another one (upstream podUpdated). Such a pod is
// then checked alone against its node's saved state ([PodBoundToNode]).
func PodBindingChanged(oldPod, newPod *v1.Pod) bool {
	if newPod == nil || newPod.Spec.NodeName == "" {
		return false
	}
	return oldPod == nil || oldPod.Spec.NodeName != newPod.Spec.NodeName
}

// PodBoundToNode returns, for a pod just bound to a node ([PodBindingChanged]), the saved
// Ready status to judge it by and whether to mark it NotReady (upstream processPod). ok is
// false when the node has no saved probe or no saved Ready condition: nothing happens then.
// In the legacy mode, package legacy decides on that status and the same saved probe, before
// marking. [Monitor.PodBound] does this for a controller.
func PodBoundToNode(saved *Probe) (ready v1.ConditionStatus, markNotReady, ok bool) {
	if saved == nil || saved.Ready == nil {
		return "", false, false
	}
	return saved.Ready.Status, saved.Ready.Status != v1.ConditionTrue, true
}

// MarkPodNotReady returns a copy of pod with its Ready condition set to False, and true, when
// that changes the pod (upstream MarkPodsNotReady, one pod). It returns nil and false when
// the pod is bound to another node than nodeName, has no Ready condition, or is already
// not ready. LastTransitionTime becomes now (upstream reads the wall clock); Reason, Message
// and LastProbeTime are kept. Write the copy with UpdateStatus (NotFound: ignore) and record a
// Warning event NodeNotReady "Node is not ready" on the pod.
func MarkPodNotReady(pod *v1.Pod, nodeName string, now time.Time) (*v1.Pod, bool) {
	if pod == nil || pod.Spec.NodeName != nodeName {
		return nil, false
	}
	for i := range pod.Status.Conditions {
		c := &pod.Status.Conditions[i]
		if c.Type != v1.PodReady {
			continue
		}
		if c.Status == v1.ConditionFalse {
			return nil, false
		}
		out := pod.DeepCopy()
		oc := &out.Status.Conditions[i]
		oc.Status = v1.ConditionFalse
		oc.LastTransitionTime = metav1.NewTime(now)
		return out, true
	}
	return nil, false
}
