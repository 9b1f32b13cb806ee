package legacy

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/events"
	nl "github.com/evictkit/eviction/nodelifecycle"
)

// The reasons of the events the legacy mode records, upstream v1.26's.
const (
	// ReasonDeletingAllPods (Normal, on the Node): the controller is about to act on a
	// non-empty list of the node's pods.
	ReasonDeletingAllPods = "DeletingAllPods"
	// ReasonNodeControllerEviction (Normal, on the Pod): the controller deletes the pod.
	ReasonNodeControllerEviction = "NodeControllerEviction"
)

// DeletingAllPods is the node event recorded before the pods of a failed node are acted on.
func DeletingAllPods(nodeName string, uid types.UID) events.Event {
	return events.Event{
		Object: v1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: nodeName, UID: uid},
		Type:   v1.EventTypeNormal, Reason: ReasonDeletingAllPods,
		Message: "Node " + nodeName + " event: Deleting all Pods from Node " + nodeName + ".",
	}
}

// MarkingForDeletion is the pod event recorded just before the pod is deleted.
func MarkingForDeletion(pod *v1.Pod, nodeName string) events.Event {
	return events.Event{
		Object: v1.ObjectReference{
			APIVersion: "v1", Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name,
			UID: pod.UID, ResourceVersion: pod.ResourceVersion,
		},
		Type: v1.EventTypeNormal, Reason: ReasonNodeControllerEviction,
		Message: "Marking for deletion Pod " + pod.Name + " from Node " + nodeName,
	}
}

// PodAPI is what [DeletePods] writes through. Every method returns the API error unchanged.
type PodAPI interface {
	// UpdatePodStatus writes pod.Status (UpdateStatus).
	UpdatePodStatus(ctx context.Context, pod *v1.Pod) error
	// DeletePod deletes the pod with default options.
	DeletePod(ctx context.Context, pod *v1.Pod) error
}

// Deletion is what [DeletePods] did.
type Deletion struct {
	// Events are the events to record, in order: DeletingAllPods when there were pods, then
	// NodeControllerEviction for each pod it deleted or tried to delete.
	Events []events.Event
	// Deleted are the pods deleted (NotFound included), in order.
	Deleted []*v1.Pod
	// Remaining reports that some pod of the node is still terminating: one deleted now, or
	// one that was already.
	Remaining bool
}

// DeletePods carries out [PlanPodDeletion] for a failed node's pods through api, as upstream
// v1.26.15's DeletePods: each pod first gets reason NodeLost (a Conflict skips the pod and
// fails the call once every pod was seen; another error is ignored), then terminating and
// DaemonSet pods are kept and the others deleted (NotFound is fine; another error stops at
// once). An error wraps [nl.ErrCallFailed]: retry the node. pods is not modified.
func DeletePods(ctx context.Context, api PodAPI, pods []*v1.Pod, nodeName string, nodeUID types.UID, daemonSets DaemonSets) (Deletion, error) {
	var out Deletion
	if len(pods) > 0 {
		out.Events = append(out.Events, DeletingAllPods(nodeName, nodeUID))
	}
	var conflicts []error
	for _, d := range PlanPodDeletion(pods, nodeName, daemonSets) {
		if d.Fate == PodElsewhere {
			continue
		}
		if d.NodeLost != nil {
			if err := api.UpdatePodStatus(ctx, d.NodeLost); apierrors.IsConflict(err) {
				conflicts = append(conflicts, fmt.Errorf("legacy: pod %s/%s on node %q: setting reason %s: %w: %w",
					d.Pod.Namespace, d.Pod.Name, nodeName, PodReasonNodeLost, nl.ErrCallFailed, err))
				continue
			}
		}
		switch d.Fate {
		case PodTerminating:
			out.Remaining = true
		case PodDelete:
			out.Events = append(out.Events, MarkingForDeletion(d.Pod, nodeName))
			err := api.DeletePod(ctx, d.Pod)
			if err != nil && !apierrors.IsNotFound(err) {
				return out, fmt.Errorf("legacy: pod %s/%s on node %q: deleting it: %w: %w", d.Pod.Namespace, d.Pod.Name, nodeName, nl.ErrCallFailed, err)
			}
			out.Deleted = append(out.Deleted, d.Pod)
			if err == nil {
				out.Remaining = true
			}
		}
	}
	if len(conflicts) > 0 {
		out.Remaining = false
		return out, errors.Join(conflicts...)
	}
	return out, nil
}
