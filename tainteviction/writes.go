package tainteviction

import (
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/events"
	"github.com/evictkit/eviction/internal/podcondition"
)

// What upstream's controller writes to the API server.
const (
	// EventReason is the reason of both of upstream's events.
	EventReason = "TaintManagerEviction"
	// ConditionReason is the reason of the DisruptionTarget condition set
	// before a pod is deleted.
	ConditionReason = "DeletionByTaintManager"
	// ConditionMessage is that condition's message.
	ConditionMessage = "Taint manager: deleting due to NoExecute taint"
)

// Marking returns the event upstream records when it starts to evict pod,
// through its EventRecorder (the recorder adds the source component, the
// controller's name, and the timestamps): Normal, [EventReason], "Marking
// for deletion Pod <namespace>/<name>", about the pod (APIVersion "v1",
// Kind "Pod", its namespace and name, no UID).
func Marking(pod types.NamespacedName) events.Event {
	return podEvent(pod, "Marking for deletion Pod "+pod.String())
}

// Cancelling returns the event upstream records when it cancels the
// scheduled eviction of pod: as [Marking], with the message "Cancelling
// deletion of Pod <namespace>/<name>".
func Cancelling(pod types.NamespacedName) events.Event {
	return podEvent(pod, "Cancelling deletion of Pod "+pod.String())
}

func podEvent(pod types.NamespacedName, msg string) events.Event {
	return events.Event{
		Object:  v1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name},
		Type:    v1.EventTypeNormal,
		Reason:  EventReason,
		Message: msg,
	}
}

// DisruptedStatus returns a copy of pod's status with the DisruptionTarget
// condition upstream sets before deleting a pod (status True,
// [ConditionReason], [ConditionMessage], observedGeneration = the pod's
// generation, as with PodObservedGenerationTracking, GA and locked on in
// v1.37), and whether it differs from the status the pod has: upstream
// patches the status only then, and deletes the pod either way. The
// condition's lastTransitionTime is now, unless the pod already had a
// DisruptionTarget condition with status True, whose time is kept. pod is
// not modified; a nil pod yields a status holding only the condition.
func DisruptedStatus(pod *v1.Pod, now time.Time) (v1.PodStatus, bool) {
	var status v1.PodStatus
	var gen int64
	if pod != nil {
		pod.Status.DeepCopyInto(&status)
		gen = pod.Generation
	}
	cond := v1.PodCondition{
		Type:               v1.DisruptionTarget,
		ObservedGeneration: gen,
		Status:             v1.ConditionTrue,
		Reason:             ConditionReason,
		Message:            ConditionMessage,
		LastTransitionTime: metav1.NewTime(now),
	}
	changed := podcondition.Set(&status, cond)
	return status, changed
}
