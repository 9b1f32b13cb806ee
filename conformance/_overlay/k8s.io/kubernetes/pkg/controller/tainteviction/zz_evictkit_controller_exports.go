// This file is not part of Kubernetes. github.com/evictkit/eviction/conformance
// adds it to this package with `go test -overlay` so that its differential
// test can feed the controller's listers itself, as upstream's own
// setupNewController does, and record its events.

package tainteviction

import "k8s.io/client-go/tools/record"

// PrepareForTest marks both listers synced, sets the pod-by-node lookup and
// replaces the event recorder.
func PrepareForTest(tc *Controller, getPods GetPodsByNodeNameFunc, recorder record.EventRecorder) {
	tc.podListerSynced = func() bool { return true }
	tc.nodeListerSynced = func() bool { return true }
	tc.getPodsAssignedToNode = getPods
	tc.recorder = recorder
}

// QueuedEvictions returns the number of evictions the controller's timed
// queue holds.
func QueuedEvictions(tc *Controller) int {
	tc.taintEvictionQueue.Lock()
	defer tc.taintEvictionQueue.Unlock()
	return len(tc.taintEvictionQueue.workers)
}
