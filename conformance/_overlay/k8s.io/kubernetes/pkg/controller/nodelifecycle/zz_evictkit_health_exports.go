// This file is not part of Kubernetes. github.com/evictkit/eviction/conformance
// adds it to this package with `go test -overlay` so that its differential
// tests can drive a controller built by NewNodeLifecycleController through
// its unexported health judgement and disruption handling. It only names
// them and reads or sets the fields they use.

package nodelifecycle

import (
	"context"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"k8s.io/kubernetes/pkg/controller/nodelifecycle/scheduler"
)

// SetClock makes the controller read the time from now instead of
// metav1.Now.
func (nc *Controller) SetClock(now func() metav1.Time) { nc.now = now }

// Stop shuts down the work queues and the event broadcaster that
// NewNodeLifecycleController started, so that a test can build many
// controllers.
func (nc *Controller) Stop() {
	nc.nodeUpdateQueue.ShutDown()
	nc.podUpdateQueue.ShutDown()
	nc.broadcaster.Shutdown()
}

// TryUpdateNodeHealth runs tryUpdateNodeHealth.
func (nc *Controller) TryUpdateNodeHealth(ctx context.Context, node *v1.Node) (time.Duration, v1.NodeCondition, *v1.NodeCondition, error) {
	return nc.tryUpdateNodeHealth(ctx, node)
}

// NodeHealth returns the health data saved for a node: its probe and
// Ready transition timestamps, saved status and saved lease; ok is false
// when nothing is saved.
func (nc *Controller) NodeHealth(name string) (probe, transition metav1.Time, status *v1.NodeStatus, lease *coordv1.Lease, ok bool) {
	h := nc.nodeHealthMap.getDeepCopy(name)
	if h == nil {
		return metav1.Time{}, metav1.Time{}, nil, nil, false
	}
	return h.probeTimestamp, h.readyTransitionTimestamp, h.status, h.lease, true
}

// SetNodeHealth saves health data with the given timestamps (and no saved
// status or lease) for a node.
func (nc *Controller) SetNodeHealth(name string, probe, transition metav1.Time) {
	nc.nodeHealthMap.set(name, &nodeHealthData{probeTimestamp: probe, readyTransitionTimestamp: transition})
}

// AddPodEvictorForNewZone runs addPodEvictorForNewZone, which monitorNodeHealth
// calls for every listed node whose zone has no state.
func (nc *Controller) AddPodEvictorForNewZone(node *v1.Node) {
	nc.addPodEvictorForNewZone(klog.Background(), node)
}

// HandleDisruption runs handleDisruption.
func (nc *Controller) HandleDisruption(ctx context.Context, zoneToNodeConditions map[string][]*v1.NodeCondition, nodes []*v1.Node) {
	nc.handleDisruption(ctx, zoneToNodeConditions, nodes)
}

// ZoneStates returns a copy of the zone states.
func (nc *Controller) ZoneStates() map[string]ZoneState {
	out := make(map[string]ZoneState, len(nc.zoneStates))
	for k, v := range nc.zoneStates {
		out[k] = v
	}
	return out
}

// ZoneTainter returns the NoExecute tainting queue of a zone (nil if none).
func (nc *Controller) ZoneTainter(zone string) *scheduler.RateLimitedTimedQueue {
	return nc.zoneNoExecuteTainter[zone]
}
