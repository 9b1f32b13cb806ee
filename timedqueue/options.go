package timedqueue

import (
	"context"
	"time"

	"k8s.io/utils/clock"
)

// DefaultWorkers is the number of work calls a [Queue] runs at once unless
// [WithWorkers] says otherwise.
const DefaultWorkers = 16

const (
	// DefaultRetryInitial is the first backoff wait of a [Retry] whose
	// Initial is zero.
	DefaultRetryInitial = time.Second
	// DefaultRetryMax is the backoff cap of a [Retry] whose Max is zero.
	DefaultRetryMax = 5 * time.Minute
)

// Option configures [New] and [NewRateLimited]. Options that a constructor
// has no use for are ignored by it.
type Option func(*config)

type config struct {
	clock   clock.Clock
	workers int
	ctx     context.Context
	onError any // func(K, error) for the Queue's K
	retry   Retry
}

func newConfig(opts []Option) config {
	c := config{clock: clock.RealClock{}, workers: DefaultWorkers, ctx: context.Background()}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// WithClock sets the clock that a [Queue] reads and arms its one timer on,
// and that a [RateLimited] reads for its token bucket and process times. A
// nil clock, like no option, means the real clock. Any [clock.WithTicker]
// (such as k8s.io/utils/clock/testing.FakeClock) qualifies: the queue only
// needs [clock.Clock].
func WithClock(c clock.Clock) Option {
	return func(cfg *config) {
		if c != nil {
			cfg.clock = c
		}
	}
}

// WithWorkers bounds the number of work calls a [Queue] runs at once (default
// [DefaultWorkers]). Due items that find every worker busy wait, still
// pending and cancellable, and start in (FireAt, insertion) order as workers
// free up. n ≤ 0 removes the bound: every due item starts its own goroutine
// at once, as upstream does. With n = 1 work calls never overlap, which makes
// a fake-clock run fully deterministic.
func WithWorkers(n int) Option {
	return func(cfg *config) { cfg.workers = n }
}

// WithContext sets the context handed to every work call (default
// [context.Background]). The queue never cancels it.
func WithContext(ctx context.Context) Option {
	return func(cfg *config) {
		if ctx != nil {
			cfg.ctx = ctx
		}
	}
}

// WithErrorHandler sets a function that a [Queue] calls, outside its lock,
// with the key and the error of every item whose work failed for good: at
// once without [WithRetry], after the last attempt with it. The handler's key
// type must be the Queue's; [New] panics on a mismatch, a programmer error.
func WithErrorHandler[K comparable](f func(key K, err error)) Option {
	return func(cfg *config) {
		if f != nil {
			cfg.onError = f
		}
	}
}

// Retry configures how a [Queue] retries failed work calls. The zero value
// makes one call per item, as upstream does (its pod-deletion work retries
// by itself, five times 10 ms apart, and then the eviction is dropped).
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

// WithRetry makes a [Queue] retry failed work calls with bounded exponential
// backoff measured on the queue's clock. While it waits for its next
// attempt an item is Pending (with its original FireAt and a non-zero
// Attempts): Cancel and Replace act on it, Shutdown drops it. Off by default.
func WithRetry(r Retry) Option {
	return func(cfg *config) { cfg.retry = r }
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
