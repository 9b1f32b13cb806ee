package nodelifecycle

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// PodReasonNodeLost is the status reason the legacy mode writes on a pod of a failed node
// before deleting it.
const PodReasonNodeLost = "NodeLost"

// NodeLostMessage returns the status message that goes with [PodReasonNodeLost].
func NodeLostMessage(nodeName, podName string) string {
	return fmt.Sprintf("Node %v which was running pod %v is unresponsive", nodeName, podName)
}

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
// In the legacy mode, also run [LegacyPodEviction] with that status and the same saved
// probe, before marking.
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

// IsDaemonSetPod reports whether the legacy mode recognises pod as a DaemonSet pod and so
// never deletes it (client-go DaemonSetLister.GetPodDaemonSets): some DaemonSet in the pod's
// namespace has a valid, non-empty selector that matches the pod's labels. Owner references
// are not consulted, and a pod without labels never matches.
func IsDaemonSetPod(pod *v1.Pod, daemonSets []*appsv1.DaemonSet) bool {
	return matchesDaemonSet(pod, daemonSetSelectors(daemonSets))
}

// dsSelector is a DaemonSet's parsed selector; only valid, non-empty ones are kept.
type dsSelector struct {
	namespace string
	selector  labels.Selector
}

func daemonSetSelectors(daemonSets []*appsv1.DaemonSet) []dsSelector {
	out := make([]dsSelector, 0, len(daemonSets))
	for _, ds := range daemonSets {
		if ds == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
		if err != nil || sel.Empty() {
			continue // an invalid selector matches nothing; an empty one must not match everything
		}
		out = append(out, dsSelector{namespace: ds.Namespace, selector: sel})
	}
	return out
}

func matchesDaemonSet(pod *v1.Pod, sels []dsSelector) bool {
	if pod == nil || len(pod.Labels) == 0 {
		return false
	}
	set := labels.Set(pod.Labels)
	for _, s := range sels {
		if s.namespace == pod.Namespace && s.selector.Matches(set) {
			return true
		}
	}
	return false
}

// PodFate is what the legacy mode does with one pod of an evicted node.
type PodFate int

const (
	// PodElsewhere: the pod is bound to another node; untouched.
	PodElsewhere PodFate = iota
	// PodDelete: delete it (default options; NotFound is fine, another error aborts the
	// node and retries it). Record a Normal event NodeControllerEviction "Marking for
	// deletion Pod p from Node n" first.
	PodDelete
	// PodTerminating: it already has deletionGracePeriodSeconds; kept, counts as remaining.
	PodTerminating
	// PodDaemonSet: a DaemonSet pod ([IsDaemonSetPod]); kept.
	PodDaemonSet
)

// String returns the fate's name.
func (f PodFate) String() string {
	switch f {
	case PodElsewhere:
		return "Elsewhere"
	case PodDelete:
		return "Delete"
	case PodTerminating:
		return "Terminating"
	case PodDaemonSet:
		return "DaemonSet"
	}
	return fmt.Sprintf("PodFate(%d)", int(f))
}

// PodDeletion is the plan for one pod of an evicted node.
type PodDeletion struct {
	// Pod is the pod as given.
	Pod *v1.Pod
	// Fate says what happens to it.
	Fate PodFate
	// NodeLost, when non-nil, is a copy of Pod with status reason NodeLost and its message,
	// to write with UpdateStatus before anything else happens to the pod. On a Conflict,
	// skip the pod and fail the node once every pod was seen (it is retried); any other
	// error is ignored.
	NodeLost *v1.Pod
}

// PlanPodDeletion plans the deletion of a failed node's pods in the legacy mode (upstream
// v1.26.15 DeletePods), pod by pod in order: a pod bound to another node is left alone; every
// other pod first gets reason NodeLost (unless it has it already), then is kept if it is
// terminating or a DaemonSet pod, and deleted otherwise. Tolerations, priority, QoS class,
// static or mirror pods and the pod phase play no part. Before acting on a non-empty list,
// upstream records the node event DeletingAllPods "Deleting all Pods from Node n.". pods is
// not modified.
func PlanPodDeletion(pods []*v1.Pod, nodeName string, daemonSets []*appsv1.DaemonSet) []PodDeletion {
	out := make([]PodDeletion, 0, len(pods))
	sels := daemonSetSelectors(daemonSets)
	for _, pod := range pods {
		d := PodDeletion{Pod: pod}
		if pod == nil || pod.Spec.NodeName != nodeName {
			out = append(out, d)
			continue
		}
		if pod.Status.Reason != PodReasonNodeLost {
			lost := pod.DeepCopy()
			lost.Status.Reason = PodReasonNodeLost
			lost.Status.Message = NodeLostMessage(nodeName, pod.Name)
			d.NodeLost = lost
		}
		switch {
		case pod.DeletionGracePeriodSeconds != nil:
			d.Fate = PodTerminating
		case matchesDaemonSet(pod, sels):
			d.Fate = PodDaemonSet
		default:
			d.Fate = PodDelete
		}
		out = append(out, d)
	}
	return out
}
