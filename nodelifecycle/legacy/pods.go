package legacy

import (
	"fmt"

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

// DaemonSets is a set of DaemonSets with their selectors parsed once, to recognise the pods
// the legacy mode never deletes (client-go DaemonSetLister.GetPodDaemonSets). The zero value
// is the empty set. Build one with [NewDaemonSets] when the DaemonSet cache changes, not per
// pod.
type DaemonSets struct {
	byNamespace map[string][]labels.Selector
}

// NewDaemonSets parses the selectors of daemonSets. Only valid, non-empty selectors are kept:
// an invalid one matches nothing, and an empty one must not match every pod. Nil entries are
// skipped; daemonSets is not kept.
func NewDaemonSets(daemonSets []*appsv1.DaemonSet) DaemonSets {
	var d DaemonSets
	for _, ds := range daemonSets {
		if ds == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
		if err != nil || sel.Empty() {
			continue
		}
		if d.byNamespace == nil {
			d.byNamespace = map[string][]labels.Selector{}
		}
		d.byNamespace[ds.Namespace] = append(d.byNamespace[ds.Namespace], sel)
	}
	return d
}

// Matches reports whether some DaemonSet of the pod's namespace selects the pod by its labels.
// Owner references are not consulted, and a pod without labels never matches.
func (d DaemonSets) Matches(pod *v1.Pod) bool {
	if pod == nil || len(pod.Labels) == 0 {
		return false
	}
	sels := d.byNamespace[pod.Namespace]
	if len(sels) == 0 {
		return false
	}
	set := labels.Set(pod.Labels)
	for _, s := range sels {
		if s.Matches(set) {
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
	// PodDaemonSet: a DaemonSet pod ([DaemonSets.Matches]); kept.
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
func PlanPodDeletion(pods []*v1.Pod, nodeName string, daemonSets DaemonSets) []PodDeletion {
	out := make([]PodDeletion, 0, len(pods))
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
		case daemonSets.Matches(pod):
			d.Fate = PodDaemonSet
		default:
			d.Fate = PodDelete
		}
		out = append(out, d)
	}
	return out
}
