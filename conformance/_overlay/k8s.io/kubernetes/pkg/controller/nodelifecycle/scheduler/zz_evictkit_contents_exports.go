// This file is not part of Kubernetes. github.com/evictkit/eviction/conformance
// adds it to this package with `go test -overlay` so that its differential
// tests can read what a queue holds. It only reads its fields.

package scheduler

import "sort"

// Contents returns the values waiting in the queue and those it holds as
// processed (in its set but no longer queued), each sorted.
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

// Ties reports whether two queued values share a process time, so that the
// heap may hand them out in either order.
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
