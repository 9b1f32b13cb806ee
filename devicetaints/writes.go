package devicetaints

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
	// DefaultName is the controller's name in kube-controller-manager: the
	// source of its events and the field manager of its rule status
	// writes.
	DefaultName = "device-taint-eviction-controller"
	// EventReason is the reason of both of its pod events.
	EventReason = "DeviceTaintManagerEviction"
	// ConditionReason is the reason of the DisruptionTarget condition set
	// before a pod is deleted.
	ConditionReason = "DeletionByDeviceTaintManager"
	// ConditionMessage is that condition's message.
	ConditionMessage = "Device Taint manager: deleting due to NoExecute taint"
	// EvictionInProgress is the type of the condition the controller keeps
	// in each DeviceTaintRule's status (resource/v1
	// DeviceTaintConditionEvictionInProgress, which k8s.io/api v0.36 lacks).
	EvictionInProgress = "EvictionInProgress"
	// RuleStatusPeriod is the shortest time between two updates of a
	// rule's condition for the same generation of the rule.
	RuleStatusPeriod = 10 * time.Second
)

// Marking returns the event upstream records when it is about to delete a
// pod that it found, with the expected UID and not yet being deleted,
// through its EventRecorder (the recorder adds the source component,
// [DefaultName], and the timestamps): Normal, [EventReason], "Marking for
// deletion", about the pod (APIVersion "v1", Kind "Pod", its namespace,
// name and UID).
func Marking(pod types.NamespacedName, uid types.UID) events.Event {
	return podEvent(pod, uid, "Marking for deletion")
}

// Cancelling returns the event upstream records when a pod that was to be
// evicted no longer is: as [Marking], with the message "Cancelling
// deletion".
func Cancelling(pod types.NamespacedName, uid types.UID) events.Event {
	return podEvent(pod, uid, "Cancelling deletion")
}

func podEvent(pod types.NamespacedName, uid types.UID, msg string) events.Event {
	return events.Event{
		Object:  v1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: uid},
		Type:    v1.EventTypeNormal,
		Reason:  EventReason,
		Message: msg,
	}
}

// DisruptedStatus returns a copy of pod's status with the DisruptionTarget
// condition upstream sets before deleting a pod (status True,
// [ConditionReason], [ConditionMessage], no observedGeneration: this
// controller does not set it, unlike the node taint manager), and whether
// it differs from the status the pod has: upstream patches the status only
// then, and deletes the pod either way. The condition's lastTransitionTime
// is now, unless the pod already had a DisruptionTarget condition with
// status True, whose time is kept. pod is not modified; a nil pod yields a
// status holding only the condition.
func DisruptedStatus(pod *v1.Pod, now time.Time) (v1.PodStatus, bool) {
	var status v1.PodStatus
	if pod != nil {
		pod.Status.DeepCopyInto(&status)
	}
	cond := v1.PodCondition{
		Type:               v1.DisruptionTarget,
		Status:             v1.ConditionTrue,
		Reason:             ConditionReason,
		Message:            ConditionMessage,
		LastTransitionTime: metav1.NewTime(now),
	}
	changed := podcondition.Set(&status, cond)
	return status, changed
}
