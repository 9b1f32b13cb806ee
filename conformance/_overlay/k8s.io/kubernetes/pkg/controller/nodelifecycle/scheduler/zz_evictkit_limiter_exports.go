// This file is not part of Kubernetes. github.com/evictkit/eviction/conformance
// adds it to this package with `go test -overlay` so that its differential
// tests can read a queue's rate limiter. It only names it.

package scheduler

import "k8s.io/client-go/util/flowcontrol"

// Limiter returns the queue's current rate limiter.
func (q *RateLimitedTimedQueue) Limiter() flowcontrol.RateLimiter {
	q.limiterLock.Lock()
	defer q.limiterLock.Unlock()
	return q.limiter
}
