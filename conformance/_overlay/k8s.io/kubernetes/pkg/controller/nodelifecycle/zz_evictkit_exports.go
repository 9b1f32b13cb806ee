// This file is not part of Kubernetes. github.com/evictkit/eviction/conformance
// adds it to this package with `go test -overlay` so that its differential
// tests can call the package's unexported helpers. It only names them.

package nodelifecycle

import (
	"context"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientset "k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	nodetopology "k8s.io/component-helpers/node/topology"

	"k8s.io/kubernetes/pkg/controller/nodelifecycle/scheduler"
)

// ZoneStateController returns a controller whose only configured fields are
// the unhealthy-zone threshold, the two eviction rates and the large-cluster
// threshold, enough for ComputeZoneState, HealthyQPSFunc and ReducedQPSFunc.
func ZoneStateController(unhealthyZoneThreshold float32, evictionLimiterQPS, secondaryEvictionLimiterQPS float32, largeClusterThreshold int32) *Controller {
	return &Controller{
		unhealthyZoneThreshold:      unhealthyZoneThreshold,
		evictionLimiterQPS:          evictionLimiterQPS,
		secondaryEvictionLimiterQPS: secondaryEvictionLimiterQPS,
		largeClusterThreshold:       largeClusterThreshold,
	}
}

// ConditionTaintKeys exposes the condition → status → NoSchedule taint key
// table.
func ConditionTaintKeys() map[v1.NodeConditionType]map[v1.ConditionStatus]string {
	return nodeConditionToTaintKeyStatusMap
}

// StateInitial is the state a zone gets from addPodEvictorForNewZone.
const StateInitial = stateInitial

// NoScheduleTaintingPass runs doNoScheduleTaintingPass for nodeName on a
// controller whose only parts are the client it writes to and the node
// lister it reads from.
func NoScheduleTaintingPass(ctx context.Context, client clientset.Interface, nodes corelisters.NodeLister, nodeName string) error {
	nc := &Controller{kubeClient: client, nodeLister: nodes}
	return nc.doNoScheduleTaintingPass(ctx, nodeName)
}

// ProcessTaintBaseEviction runs processTaintBaseEviction for node on a
// controller whose only parts are the client it writes to and queue as the
// NoExecute tainter of the node's zone.
func ProcessTaintBaseEviction(ctx context.Context, client clientset.Interface, queue *scheduler.RateLimitedTimedQueue, node *v1.Node, ready *v1.NodeCondition) {
	nc := &Controller{
		kubeClient:           client,
		now:                  metav1.Now,
		zoneNoExecuteTainter: map[string]*scheduler.RateLimitedTimedQueue{nodetopology.GetZoneKey(node): queue},
	}
	nc.processTaintBaseEviction(ctx, node, ready)
}
