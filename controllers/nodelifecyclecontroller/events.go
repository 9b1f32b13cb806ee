package nodelifecyclecontroller

import (
	"context"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"

	"github.com/evictkit/eviction/nodelifecycle"
)

// EventSource is the component the controller's events name as their
// source: upstream's node lifecycle controller records as "node-controller",
// not under its --controllers name.
const EventSource = "node-controller"

// The reasons of the controller's events, upstream's.
const (
	// ReasonRegisteredNode (Normal, on the Node): a pass lists a node the
	// controller has not listed before, so every node once a controller
	// starts leading.
	ReasonRegisteredNode = "RegisteredNode"
	// ReasonRemovingNode (Normal, on the Node): a node listed by the last
	// pass is gone.
	ReasonRemovingNode = "RemovingNode"
	// ReasonNodeNotReady is both the Normal event on a Node the controller
	// itself turned not ready (its Ready condition was True) and the Warning
	// event on each pod it then marks not ready, or on a pod bound later to
	// a node that is not ready.
	ReasonNodeNotReady = "NodeNotReady"
)

// nodeRef is the reference upstream's node events carry: kind, version,
// name and UID, no resourceVersion.
func nodeRef(name string, uid types.UID) *v1.ObjectReference {
	return &v1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: name, UID: uid}
}

// recordNodeEvent is upstream's RecordNodeEvent: the message names the node
// and what happened to it.
func recordNodeEvent(r record.EventRecorder, name string, uid types.UID, reason, what string) {
	r.Eventf(nodeRef(name, uid), v1.EventTypeNormal, reason, "Node %s event: %s", name, what)
}

// recordNodeStatusChange is upstream's RecordNodeStatusChange.
func recordNodeStatusChange(r record.EventRecorder, node *v1.Node, status string) {
	r.Eventf(nodeRef(node.Name, node.UID), v1.EventTypeNormal, status, "Node %s status is now: %s", node.Name, status)
}

// recordPodNotReady is the event upstream records on a pod it tried to mark
// not ready (the write succeeded or failed with anything but NotFound).
func recordPodNotReady(r record.EventRecorder, pod *v1.Pod) {
	r.Event(pod, v1.EventTypeWarning, ReasonNodeNotReady, "Node is not ready")
}

// registry is the controller's own record of the nodes the last pass
// listed (upstream knownNodeSet), from which the registration events come.
// Only the pass loop touches it.
type registry map[string]types.UID

// update takes a pass's listing, sorted by name, and records RegisteredNode
// for every node not listed last time, then RemovingNode (in name order)
// for every node listed last time and missing now.
func (reg registry) update(r record.EventRecorder, nodes []*v1.Node) {
	for _, n := range nodes {
		if _, ok := reg[n.Name]; !ok {
			recordNodeEvent(r, n.Name, n.UID, ReasonRegisteredNode, "Registered Node "+n.Name+" in Controller")
			reg[n.Name] = n.UID
		}
	}
	if len(reg) == len(nodes) {
		return
	}
	listed := make(map[string]struct{}, len(nodes))
	for _, n := range nodes {
		listed[n.Name] = struct{}{}
	}
	var gone []string
	for name := range reg {
		if _, ok := listed[name]; !ok {
			gone = append(gone, name)
		}
	}
	slices.Sort(gone)
	for _, name := range gone {
		recordNodeEvent(r, name, reg[name], ReasonRemovingNode, "Removing Node "+name+" from Controller")
		delete(reg, name)
	}
}

// passEvents holds back the pod events of one monitor pass, so that each
// node's NodeNotReady event comes before its pods' as upstream records them.
// The pass makes its API calls one at a time, so it needs no lock.
type passEvents struct {
	// listed are the nodes whose pods the pass listed, to mark them.
	listed map[string]bool
	// pods are the pods the pass tried to mark not ready, by node.
	pods map[string][]*v1.Pod
}

type passEventsKey struct{}

// withPassEvents returns ctx carrying pe: the API calls made under it hold
// their events back in pe instead of recording them.
func withPassEvents(ctx context.Context, pe *passEvents) context.Context {
	return context.WithValue(ctx, passEventsKey{}, pe)
}

// podMarked records, or holds back during a pass, the event of a pod the
// controller tried to mark not ready.
func podMarked(ctx context.Context, r record.EventRecorder, pod *v1.Pod) {
	if pe, ok := ctx.Value(passEventsKey{}).(*passEvents); ok {
		pe.pods[pod.Spec.NodeName] = append(pe.pods[pod.Spec.NodeName], pod)
		return
	}
	recordPodNotReady(r, pod)
}

// flush records what a pass did, node by node in the listing's order: the
// node's NodeNotReady when the pass turned it not ready and got to its pods
// (upstream records it only after listing them), then the events of the
// pods it tried to mark.
func (pe *passEvents) flush(r record.EventRecorder, nodes []nodelifecycle.NodePass) {
	for _, np := range nodes {
		name := np.Node.Name
		if pe.listed[name] && np.TurnedNotReady {
			recordNodeStatusChange(r, np.Node, ReasonNodeNotReady)
		}
		for _, pod := range pe.pods[name] {
			recordPodNotReady(r, pod)
		}
	}
}

// sortNodes sorts a listing by name, the order of a pass.
func sortNodes(nodes []*v1.Node) {
	slices.SortFunc(nodes, func(a, b *v1.Node) int { return strings.Compare(a.Name, b.Name) })
}
