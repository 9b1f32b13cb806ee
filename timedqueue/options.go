package timedqueue

import (
	"context"
	"runtime"
	"time"

	"k8s.io/utils/clock"
)

const (
	// DefaultRetryInitial is the first backoff wait of a [Retry] whose
	// Initial is zero.
	DefaultRetryInitial = time.Second
	// DefaultRetryMax is the backoff cap of a [Retry] whose Max is zero.
	DefaultRetryMax = 5 * time.Minute
)

// Options configures [New]. The zero value is a usable queue on the real
// clock with GOMAXPROCS workers, no retries, no error handler and no
// metrics.
type Options[K comparable] struct {
	// Name names the queue in its metrics (client-go's workqueue name). A
	// queue without a name reports no metrics, as client-go's does.
	Name string

	// Clock is the clock the queue reads and arms its one timer on; nil
	// means the real clock. Any [clock.WithTicker], such as
	// k8s.io/utils/clock/testing.FakeClock, qualifies.
	Clock clock.Clock

	// Workers bounds the number of work calls that run at once; 0 or less
	// means GOMAXPROCS, as in package preemption. Due items that find every
	// worker busy wait, still pending and cancellable, and start in
	// (FireAt, insertion) order as workers free up. With 1, work calls
	// never overlap, which makes a fake-clock run fully deterministic.
	Workers int

	// Context is the parent of the context handed to every work call; nil
	// means [context.Background]. [Queue.Shutdown] cancels the derived
	// context, so running calls see ctx.Done.
	Context context.Context

	// OnError, if set, is called outside the queue's lock with the key and
	// the error of every item whose work failed for good: at once without
	// Retry, after the last attempt with it. Upstream logs the error.
	OnError func(key K, err error)

	// Retry configures retries of failed work calls; the zero value makes
	// one call per item, as upstream does.
	Retry Retry

	// Metrics, if set (and Name is not empty), receives the queue's
	// metrics under client-go workqueue's names and meanings; see
	// [MetricsProvider]. Nil costs nothing.
	Metrics MetricsProvider
}

// workers returns the bound on concurrent work calls.
func (o *Options[K]) workers() int {
	if o.Workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return o.Workers
}

// Retry configures how a [Queue] retries failed work calls. The zero value
// makes one call per item, as upstream does (its pod-deletion work retries
// by itself, five times 10 ms apart, and then the eviction is dropped).
//
// While an item waits for its next attempt it is Pending (with its
// original FireAt and a non-zero Attempts): Cancel acts on it, Shutdown
// drops it. Waits are measured on the queue's clock.
type Retry struct {
	// MaxAttempts is the greatest number of calls per item, the first
	// included. 0 and 1 mean one call; a negative value retries until the
	// call succeeds or the item is cancelled or the queue shut down.
	MaxAttempts int
	// Initial is the wait after the first failure ([DefaultRetryInitial]
	// when zero or negative); each further failure doubles it.
	Initial time.Duration
	// Max caps the wait ([DefaultRetryMax] when zero or negative).
	Max time.Duration
}

// retries reports whether an item that has now failed `failed` times gets
// another call.
func (r Retry) retries(failed int) bool {
	return r.MaxAttempts < 0 || failed < r.MaxAttempts
}

// Backoff returns the wait after the n-th consecutive failure (n ≥ 1):
// Initial·2ⁿ⁻¹, capped at Max, with the defaults for zero fields. It never
// overflows.
func (r Retry) Backoff(n int) time.Duration {
	initial := r.Initial
	if initial <= 0 {
		initial = DefaultRetryInitial
	}
	maxWait := r.Max
	if maxWait <= 0 {
		maxWait = DefaultRetryMax
	}
	d := min(initial, maxWait)
	for i := 1; i < n && d < maxWait; i++ {
		if d > maxWait/2 {
			return maxWait
		}
		d *= 2
	}
	return d
}
