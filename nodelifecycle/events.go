package nodelifecycle

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/events"
)

// The reasons of the events the node lifecycle controller records, upstream's.
const (
	// ReasonRegisteredNode (Normal, on the Node): a pass lists a node the Monitor has not
	// listed before, so every node at a Monitor's first pass.
	ReasonRegisteredNode = "RegisteredNode"
	// ReasonRemovingNode (Normal, on the Node): a node listed by the previous pass is gone.
	ReasonRemovingNode = "RemovingNode"
	// ReasonNodeNotReady is both the Normal event on a Node the pass itself turned not ready
	// (its Ready condition was True) and the Warning event on each pod then marked not ready,
	// or on a pod bound later to a node that is not ready.
	ReasonNodeNotReady = "NodeNotReady"
)

// RegisteredNode is the event of a node a pass lists for the first time. The node events
// (RegisteredNode, RemovingNode, NodeNotReady) are about the Node as upstream's carry it:
// APIVersion "v1", Kind "Node", its name and UID.
func RegisteredNode(name string, uid types.UID) events.Event {
	return nodeEvent(name, uid, v1.EventTypeNormal, ReasonRegisteredNode, "Node "+name+" event: Registered Node "+name+" in Controller")
}

// RemovingNode is the event of a node listed by the previous pass and gone from this one.
func RemovingNode(name string, uid types.UID) events.Event {
	return nodeEvent(name, uid, v1.EventTypeNormal, ReasonRemovingNode, "Node "+name+" event: Removing Node "+name+" from Controller")
}

// NodeNotReady is the event of a node the pass turned not ready.
func NodeNotReady(name string, uid types.UID) events.Event {
	return nodeEvent(name, uid, v1.EventTypeNormal, ReasonNodeNotReady, "Node "+name+" status is now: "+ReasonNodeNotReady)
}

// PodNotReady is the Warning event on a pod the controller marked, or tried to mark, not
// ready. It is about the Pod as a recorder refers to the pod object: its kind, namespace,
// name, UID and resourceVersion.
func PodNotReady(pod *v1.Pod) events.Event {
	return events.Event{
		Object: v1.ObjectReference{
			APIVersion: "v1", Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name,
			UID: pod.UID, ResourceVersion: pod.ResourceVersion,
		},
		Type: v1.EventTypeWarning, Reason: ReasonNodeNotReady, Message: "Node is not ready",
	}
}

func nodeEvent(name string, uid types.UID, typ, reason, msg string) events.Event {
	return events.Event{
		Object: v1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: name, UID: uid},
		Type:   typ, Reason: reason, Message: msg,
	}
}
