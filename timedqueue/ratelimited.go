package timedqueue

import (
	"math"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// TimedValue is a value of a [RateLimited] queue with its times: a value
// copy, like upstream's TimedValue.
type TimedValue[K comparable] struct {
	// Value is the queued key, a node name in the node lifecycle controller.
	Value K
	// UID is stored with the value and handed back; it plays no part in
	// uniqueness.
	UID any
	// AddedAt is the time the value was added.
	AddedAt time.Time
	// ProcessAt is the earliest time Try hands the value to its function.
	ProcessAt time.Time
}

// RateLimited is a unique queue of values, each processed no earlier than
// its process time, at most one per token of a token bucket (burst 1): the
// queue the node lifecycle controller drains per zone to taint nodes at the
// eviction rate. A value is absent, queued, or processed (a tombstone that
// refuses re-adding until [RateLimited.Remove]).
//
// It is fully synchronous and reads no clock: nothing happens except inside
// its methods, and the methods that need the time (Add, Try, SetRate) take
// it as their first argument, as x/time/rate's AllowN does. All methods are
// safe for concurrent use.
type RateLimited[K comparable] struct {
	try sync.Mutex // serialises Try; never held by the other methods

	mu        sync.Mutex
	h         heap[K, any]   // queued values with their UIDs: CreatedAt = AddedAt, FireAt = ProcessAt
	processed map[K]struct{} // tombstones
	lim       *rate.Limiter  // nil: stopped
	qps       float32        // the configured rate
	taken     bool           // a value is handed out by Take, not yet settled
}

// NewRateLimited returns an empty queue whose token bucket refills at qps
// tokens per second, holds one token and starts full, like client-go's
// NewTokenBucketRateLimiter(qps, 1) that upstream gives each zone. A qps of
// +Inf accepts every draw (upstream tests' "always" limiter). The constructor
// takes qps as it is, like upstream: a zero rate yields one token and then
// none.
func NewRateLimited[K comparable](qps float32) *RateLimited[K] {
	return &RateLimited[K]{lim: rate.NewLimiter(limit(qps), 1), qps: qps}
}

func limit(qps float32) rate.Limit {
	if math.IsInf(float64(qps), 1) {
		return rate.Inf
	}
	return rate.Limit(qps)
}

// Add queues value, with AddedAt = ProcessAt = now, and reports true; it
// reports false when value is queued or processed. O(log n).
func (r *RateLimited[K]) Add(now time.Time, value K, uid any) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, done := r.processed[value]; done {
		return false
	}
	return r.h.Push(value, uid, now, now)
}

// timedValue returns the TimedValue of the queued item it.
func timedValue[K comparable](it Item[K, any]) TimedValue[K] {
	return TimedValue[K]{Value: it.Key, UID: it.Value, AddedAt: it.CreatedAt, ProcessAt: it.FireAt}
}

// Remove forgets value, queued or processed, so that it may be added again,
// and reports whether it was there. O(log n).
func (r *RateLimited[K]) Remove(value K) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, done := r.processed[value]; done {
		delete(r.processed, value)
		return true
	}
	_, ok := r.h.Remove(value)
	return ok
}

// Try hands queued values to fn in process-time order (FIFO among equal
// times) and returns the number of fn calls, all at the time now. For each
// value it first draws a token and stops if the bucket is empty; then it
// stops if the value is not due at now (the token is spent anyway, as
// upstream spends it). When fn
// reports done, the value becomes processed; otherwise it is queued again
// with ProcessAt = now + wait + 1ns, keeping its AddedAt and UID — unless it
// was removed while fn ran. fn runs without the queue's lock, so it may call
// Add, Remove or SetRate; Try calls do not overlap. Try is [RateLimited.Take]
// and [RateLimited.Settle] in a loop.
func (r *RateLimited[K]) Try(now time.Time, fn func(v TimedValue[K]) (done bool, wait time.Duration)) int {
	r.try.Lock()
	defer r.try.Unlock()
	n := 0
	for {
		v, ok := r.Take(now)
		if !ok {
			return n
		}
		done, wait := fn(v)
		n++
		r.Settle(now, v, done, wait)
	}
}

// Take is one step of [RateLimited.Try] for a caller that learns the outcome
// later (an API call made elsewhere): it draws a token and hands out the head
// value if one is queued, the token drawn and the value due at now. The value
// stays queued until [RateLimited.Settle] says what became of it; until then
// Take hands out nothing more (it reports false).
func (r *RateLimited[K]) Take(now time.Time) (TimedValue[K], bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.taken {
		return TimedValue[K]{}, false
	}
	head, ok := r.h.Peek()
	if !ok {
		return TimedValue[K]{}, false
	}
	if r.lim == nil || !r.lim.AllowN(now, 1) || now.Before(head.FireAt) {
		return TimedValue[K]{}, false
	}
	r.taken = true
	return timedValue(head), true
}

// Settle ends the handing out of v, the value [RateLimited.Take] returned, at
// now: done makes it processed; otherwise it is queued again with ProcessAt =
// now + wait + 1ns, keeping its AddedAt and UID, as [RateLimited.Try] does. A value
// removed since Take stays removed: done leaves no tombstone, and a retry does not bring it
// back.
func (r *RateLimited[K]) Settle(now time.Time, v TimedValue[K], done bool, wait time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.taken = false
	if done {
		if _, queued := r.h.Remove(v.Value); queued {
			if r.processed == nil {
				r.processed = make(map[K]struct{})
			}
			r.processed[v.Value] = struct{}{}
		}
		return
	}
	// Like upstream, the retried value is the one handed out (its UID too),
	// even if the key was removed and added again meanwhile.
	r.h.Update(v.Value, v.UID, v.AddedAt, now.Add(wait+1))
}

// SetRate changes the bucket's rate, as upstream's SwapLimiter does: a qps
// equal to the configured one changes nothing; qps ≤ 0 (or NaN) stops the
// queue; otherwise a new bucket at qps replaces the old and starts full only
// if the old one could hand out a token now (which it then spends). The
// queue remembers the configured rate, 0 when stopped, so that any positive
// rate resumes a stopped queue. now is the time of the change. It takes
// effect at the next token draw, without waiting for a running Try.
func (r *RateLimited[K]) SetRate(now time.Time, qps float32) {
	if math.IsNaN(float64(qps)) || qps < 0 {
		qps = 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if qps == r.qps {
		return
	}
	r.qps = qps
	if qps == 0 {
		r.lim = nil
		return
	}
	lim := rate.NewLimiter(limit(qps), 1)
	if r.lim == nil || !r.lim.AllowN(now, 1) {
		lim.AllowN(now, 1)
	}
	r.lim = lim
}

// NextToken returns the earliest time, at or after now, at which a token can be drawn from the
// queue's bucket, with true; now itself when one can be drawn at now. It changes nothing. A
// Try before that time hands out nothing and changes nothing; a Try at or after it, while the
// queue holds values, draws the token (it hands out the first value if that is due, and spends
// the token anyway if not). It reports false when the queue is stopped, when a rate of 0 has
// left the bucket empty for good, or when the next token is further than the longest
// time.Duration (about 292 years) away.
//
// The time is exact for the bucket's floating-point arithmetic (x/time/rate's): a draw at the
// returned time succeeds and a draw one nanosecond earlier, if not before now, fails, with no
// rounding margin. It is found by a binary search over the bucket's token count, O(log) of
// the wait in nanoseconds (about 60 steps).
func (r *RateLimited[K]) NextToken(now time.Time) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	lim := r.lim
	switch {
	case lim == nil:
		return time.Time{}, false
	case lim.Limit() == rate.Inf || drawable(lim, now):
		return now, true
	case lim.Limit() <= 0:
		return time.Time{}, false
	}
	// A first guess from the missing fraction of a token, then a search between now (no
	// token) and a time with a token. The token count never decreases with time, so neither
	// does drawable.
	wait := (1 - lim.TokensAt(now)) / float64(lim.Limit()) * float64(time.Second)
	if !(wait < math.MaxInt64) {
		return time.Time{}, false
	}
	lo, hi := now, now.Add(time.Duration(wait))
	for step := time.Duration(1); !drawable(lim, hi); step *= 2 {
		if step > math.MaxInt64/4 || hi.Sub(now) > math.MaxInt64-step {
			return time.Time{}, false
		}
		lo, hi = hi, hi.Add(step)
	}
	for hi.Sub(lo) > 1 {
		mid := lo.Add(hi.Sub(lo) / 2)
		if drawable(lim, mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

// drawable reports whether lim.AllowN(t, 1) would succeed, without drawing: x/time/rate
// allows a draw when the bucket holds a whole token at t, or when the time left to fill it
// truncates to zero nanoseconds. lim has a burst of 1 and a finite limit.
func drawable(lim *rate.Limiter, t time.Time) bool {
	missing := 1 - lim.TokensAt(t)
	return missing <= 0 || missing/float64(lim.Limit())*float64(time.Second) < 1
}

// QPS returns the configured rate: the constructor's, or the last one
// SetRate applied (0 once stopped).
func (r *RateLimited[K]) QPS() float32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.qps
}

// Clear removes every queued value and every tombstone. The bucket is kept.
func (r *RateLimited[K]) Clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.h.Clear()
	r.processed = nil
}

// Len returns the number of queued values; tombstones do not count. O(1).
func (r *RateLimited[K]) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.h.Len()
}

// Get returns value as queued, with its times and UID. O(1).
func (r *RateLimited[K]) Get(value K) (TimedValue[K], bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	it, ok := r.h.Get(value)
	if !ok {
		return TimedValue[K]{}, false
	}
	return timedValue(it), true
}

// Has reports whether value is queued or processed, i.e. whether Add would
// refuse it (upstream's set). O(1).
func (r *RateLimited[K]) Has(value K) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.processed[value]; ok {
		return true
	}
	_, ok := r.h.Get(value)
	return ok
}

// Values returns the queued values in the order Try would take them.
// O(n log n).
func (r *RateLimited[K]) Values() []TimedValue[K] {
	r.mu.Lock()
	defer r.mu.Unlock()
	es := slices.Clone(r.h.elems)
	slices.SortFunc(es, elem.compare)
	out := make([]TimedValue[K], len(es))
	for i, e := range es {
		out[i] = timedValue(r.h.item(e.slot))
	}
	return out
}

// NextDue returns the earliest ProcessAt, so that a caller may sleep until
// then instead of polling; upstream polls every 100 ms. O(1).
func (r *RateLimited[K]) NextDue() (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	it, ok := r.h.Peek()
	return it.FireAt, ok
}
