// This file is not part of Kubernetes. github.com/evictkit/eviction/conformance/v126/upstream
// adds it to this package with `go build -overlay` so that its helper program can run a
// controller built by NewNodeLifecycleController (taint manager off) one monitor pass and one
// eviction pass at a time. It only names unexported functions and reads or sets fields.

package nodelifecycle

import (
	"context"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/record"

	"k8s.io/kubernetes/pkg/controller/nodelifecycle/scheduler"
)

// SetClock makes the controller read the time from now instead of metav1.Now.
func (nc *Controller) SetClock(now func() metav1.Time) { nc.now = now }

// SetRecorder replaces the event recorder.
func (nc *Controller) SetRecorder(r record.EventRecorder) { nc.recorder = r }

// SetNodeLister replaces the node lister monitorNodeHealth and doEvictionPass read.
func (nc *Controller) SetNodeLister(l corelisters.NodeLister) { nc.nodeLister = l }

// Stop shuts down the work queues and the event broadcaster NewNodeLifecycleController
// started.
func (nc *Controller) Stop() {
	nc.nodeUpdateQueue.ShutDown()
	nc.podUpdateQueue.ShutDown()
	nc.broadcaster.Shutdown()
}

// MonitorNodeHealth runs monitorNodeHealth.
func (nc *Controller) MonitorNodeHealth(ctx context.Context) error { return nc.monitorNodeHealth(ctx) }

// DoEvictionPass runs doEvictionPass.
func (nc *Controller) DoEvictionPass(ctx context.Context) { nc.doEvictionPass(ctx) }

// ZoneStates returns a copy of the zone states.
func (nc *Controller) ZoneStates() map[string]ZoneState {
	out := make(map[string]ZoneState, len(nc.zoneStates))
	for k, v := range nc.zoneStates {
		out[k] = v
	}
	return out
}

// ZonePodEvictors returns the zones that have a pod evictor, sorted.
func (nc *Controller) ZonePodEvictors() []string {
	nc.evictorLock.Lock()
	defer nc.evictorLock.Unlock()
	out := make([]string, 0, len(nc.zonePodEvictor))
	for z := range nc.zonePodEvictor {
		out = append(out, z)
	}
	sort.Strings(out)
	return out
}

// ZonePodEvictor returns the pod evictor of a zone (nil if none).
func (nc *Controller) ZonePodEvictor(zone string) *scheduler.RateLimitedTimedQueue {
	nc.evictorLock.Lock()
	defer nc.evictorLock.Unlock()
	return nc.zonePodEvictor[zone]
}

// RegisterNode does what the node informer's add handler does for the eviction state:
// registers the node as not marked for eviction.
func (nc *Controller) RegisterNode(name string) { nc.nodeEvictionMap.registerNode(name) }
