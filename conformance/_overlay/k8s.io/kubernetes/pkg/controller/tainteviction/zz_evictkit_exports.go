// This file is not part of Kubernetes. github.com/evictkit/eviction/conformance
// adds it to this package with `go test -overlay` so that its differential
// tests can call the package's unexported helpers. It only names them.

package tainteviction

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
)

var (
	GetMinTolerationTime = getMinTolerationTime
	GetNoExecuteTaints   = getNoExecuteTaints
)

// CreateWorkerQueueWithClock is CreateWorkerQueue on the given clock.
func CreateWorkerQueueWithClock(f func(ctx context.Context, fireAt time.Time, args *WorkArgs) error, c clock.WithDelayedExecution) *TimedWorkerQueue {
	q := CreateWorkerQueue(f)
	q.clock = c
	return q
}

// ProcessPodOnNode runs processPodOnNode on a controller whose only part is
// the queue q (no event recorder, so no events).
func ProcessPodOnNode(ctx context.Context, q *TimedWorkerQueue, pod types.NamespacedName, nodeName string, tolerations []v1.Toleration, taints []v1.Taint, now time.Time) {
	(&Controller{taintEvictionQueue: q}).processPodOnNode(ctx, pod, nodeName, tolerations, taints, now)
}

// WaitRunning waits until every work function the queue has started has
// returned (pending timers are not waited for).
func (q *TimedWorkerQueue) WaitRunning() { q.workerWG.Wait() }
