// This file is not part of Kubernetes. github.com/evictkit/eviction/conformance/v126/upstream
// adds it to this package with `go build -overlay` so that its helper program can give the
// queues a fake clock and read what they hold. It only names and sets package variables and
// fields.

package scheduler

import (
	"sort"
	"time"

	"k8s.io/client-go/util/flowcontrol"
)

// SetNow makes the package read the time from f.
func SetNow(f func() time.Time) { now = f }

// Limiter returns the queue's current rate limiter.
func (q *RateLimitedTimedQueue) Limiter() flowcontrol.RateLimiter {
	q.limiterLock.Lock()
	defer q.limiterLock.Unlock()
	return q.limiter
}

// SetLimiter replaces the queue's rate limiter.
func (q *RateLimitedTimedQueue) SetLimiter(l flowcontrol.RateLimiter) {
	q.limiterLock.Lock()
	defer q.limiterLock.Unlock()
	q.limiter = l
}

// Contents returns the values waiting in the queue and those it holds as processed (in its
// set but no longer queued), each sorted.
func (q *RateLimitedTimedQueue) Contents() (queued, processed []string) {
	q.queue.lock.Lock()
	defer q.queue.lock.Unlock()
	in := map[string]bool{}
	for _, v := range q.queue.queue {
		in[v.Value] = true
		queued = append(queued, v.Value)
	}
	for v := range q.queue.set {
		if !in[v] {
			processed = append(processed, v)
		}
	}
	sort.Strings(queued)
	sort.Strings(processed)
	return queued, processed
}

// Ties reports whether two queued values share a process time, so that the heap may hand
// them out in an order that depends on its history.
func (q *RateLimitedTimedQueue) Ties() bool {
	q.queue.lock.Lock()
	defer q.queue.lock.Unlock()
	seen := map[int64]bool{}
	for _, v := range q.queue.queue {
		t := v.ProcessAt.UnixNano()
		if seen[t] {
			return true
		}
		seen[t] = true
	}
	return false
}
