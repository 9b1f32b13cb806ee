package nodelifecyclecontroller

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/nodelifecycle"
)

// EventSource is the component the controller's events name as their
// source: upstream's node lifecycle controller records as "node-controller",
// not under its --controllers name.
const EventSource = "node-controller"

// The reasons of the controller's events, upstream's (package
// nodelifecycle builds them).
const (
	// ReasonRegisteredNode (Normal, on the Node): a pass lists a node the
	// controller has not listed before, so every node once a controller
	// starts leading.
	ReasonRegisteredNode = nodelifecycle.ReasonRegisteredNode
	// ReasonRemovingNode (Normal, on the Node): a node listed by the last
	// pass is gone.
	ReasonRemovingNode = nodelifecycle.ReasonRemovingNode
	// ReasonNodeNotReady is both the Normal event on a Node the controller
	// itself turned not ready (its Ready condition was True) and the Warning
	// event on each pod it then marks not ready, or on a pod bound later to
	// a node that is not ready.
	ReasonNodeNotReady = nodelifecycle.ReasonNodeNotReady
)

// sortNodes sorts a listing by name, the order of a pass.
func sortNodes(nodes []*v1.Node) {
	slices.SortFunc(nodes, func(a, b *v1.Node) int { return strings.Compare(a.Name, b.Name) })
}
