// Package timedqueue runs work at scheduled times: a synchronous schedule of
// keyed items ([Schedule], no clock and no goroutine: a controller's core
// keeps its evictions in one), a timed worker queue that drives the same
// heap on an injected clock with a bounded worker pool ([Queue], for
// adapters), and the rate-limited queue the node lifecycle controller
// drains per zone, which takes the time as an argument.
//
// It mirrors two upstream structures of Kubernetes v1.37.2:
//
//   - [Queue] replaces TimedWorkerQueue (pkg/controller/tainteviction
//     timed_workers.go: CreateWorkerQueue, AddWork, UpdateWork, CancelWork,
//     GetWorkerUnsafe, CancelAndWait), which the taint-eviction controller
//     uses to delete each pod when its toleration runs out and to cancel the
//     deletion when the taint goes away.
//   - [RateLimited] replaces RateLimitedTimedQueue over UniqueQueue
//     (pkg/controller/nodelifecycle/scheduler rate_limited_queue.go: Add,
//     Remove, Try, SwapLimiter, Clear), which the node lifecycle controller
//     drains at the zone's eviction rate to taint unhealthy nodes.
//
// All three are built on one synchronous min-heap with no goroutine and no
// clock of its own; [Schedule] is that heap with the Queue's rules (one
// started item per key, held adds, released cancels, retries) and nothing
// else: the caller takes the due items with Start(now) and reports them.
//
//	q := timedqueue.New(func(ctx context.Context, it timedqueue.Item[types.NamespacedName, Meta]) error {
//		return evict(ctx, it.Key, it.Value) // it.FireAt, it.CreatedAt too
//	}, timedqueue.Options[types.NamespacedName]{Clock: clk})
//	q.Add(pod, meta, now, now.Add(toleration)) // q.Cancel(pod) when the taint goes
//	defer q.Shutdown(ctx)
//
// # Guarantees
//
//   - One clock timer for a whole [Queue], set for the earliest pending item;
//     no timer, closure or goroutine per item. At most one timer goroutine
//     and the bounded worker pool ([Options.Workers], GOMAXPROCS by default)
//     run, and none at all while nothing is pending or running.
//   - An item is due when the clock reaches its FireAt; due items start in
//     (FireAt, insertion) order, never before FireAt, and each at most once.
//   - A key never runs twice at once: an Add of a key whose call
//     is running (client-go workqueue's dirty-while-processing rule) holds
//     the new item, pending, until that call returns; it is never dropped.
//   - The first Add of a pending key wins; Cancel of a pending item means it
//     never starts; a finished call removes only its own item (a newer item
//     under the same key survives it).
//   - Each item carries a value of the caller's type V (struct{} for none),
//     handed back by Get and to the work function: what an item needs
//     beside its key lives in the queue, not in a side map.
//   - The work function gets a copy of the item (its original FireAt, its
//     value) and never runs under the queue's lock, so it may call the
//     queue's methods.
//   - [Queue.Batch] takes the lock once for many operations (a node's pods)
//     and dispatches once at the end; its [Entry] hashes a key once for a
//     Get, Cancel and Add in a row.
//   - [Queue.Shutdown] drops what is pending, cancels the context handed to
//     running calls and returns once they and the queue's goroutines are
//     gone; [Queue.ShuttingDown] reports it.
//   - [Queue.Idle] waits until everything due has run, so tests and
//     simulators step a fake clock and never sleep.
//   - Metrics under client-go workqueue's names and meanings through
//     [MetricsProvider]; none, at no cost, without one.
//   - [RateLimited] has no goroutine and no clock: the calls that need the
//     time take it (Add, Try, SetRate, NextToken), so its behaviour is exact and
//     repeatable.
//   - Configuration is typed ([Options]): a wrong key
//     type in OnError does not compile. Time comes only from the injected
//     clock (the real one by default); retry backoff waits too.
//
// # Costs
//
// Add and Cancel are O(log n) on a 4-ary heap whose entries carry
// their sort key inline; Get and Len are O(1). A pending item is one slab
// entry (its key, stored once, its value and both times), one heap entry and
// one bucket of the key index (a hash table of the heap's own, so the key is
// not stored a second time), and costs no allocation once the slab has
// grown; BENCHMARKS.md gives the bytes. The slab grows by pages, so growing
// copies nothing. The storage is kept when the queue empties, so draining
// and refilling it allocates nothing either; a large queue that stays below
// a quarter of its peak (for as many removals as the peak had items) gives
// the memory back, and [Queue.Shutdown] gives it back at once unless a call
// is still running. [RateLimited] removes and re-queues values in O(log n)
// through the same index. Times are kept as wall-clock instants to the
// nanosecond: without monotonic readings, each in its own location, clamped
// to the years 1678 to 2262.
//
// # Driving a Queue from a fake clock
//
// Create the queue with Options{Clock: fakeClock, Workers: 1}, then
// alternate fakeClock.Step(d) and q.Idle(ctx): after Idle returns, every
// item whose FireAt is at or before the new time has run, in (FireAt,
// insertion) order. Call Shutdown at the end so that no goroutine outlives
// the test. The same holds inside a testing/synctest bubble with the real
// clock, where time.Sleep advances the bubble's clock.
//
// # Differences from upstream
//
// Each is asserted by a test whose comment names upstream's behaviour.
//
//   - Absolute fire time: an item is due when the clock reaches FireAt.
//     Upstream waits FireAt − createdAt from the moment of AddWork, so an
//     item with createdAt = now−400ms and fireAt = now−200ms runs 200 ms
//     later there and at once here. Every upstream caller passes
//     createdAt = now, where both agree. Fire times compare on the wall
//     clock; upstream's relative timers follow the monotonic clock.
//   - Completion removes only its own item: upstream deletes whatever entry
//     holds the key when a call returns, so an item added after a cancel of
//     the running one loses its entry: it still fires, but can no longer be
//     seen or cancelled.
//   - One call per key at a time: upstream starts an item added after the
//     cancel of a running one at once, beside it; here it is held until the
//     running call returns. An Add of a running key holds a new
//     item too; upstream's AddWork skips a running key.
//   - [Queue.Cancel] of a running item reports false; upstream reports true
//     when the running item had been started by its timer.
//   - FIFO among equal fire or process times; upstream's heap returns five
//     equal values a, b, c, d, e as a e d c b.
//   - [RateLimited.SetRate] remembers the configured rate, so any positive
//     rate resumes a stopped queue; upstream's stopped limiter reports a rate
//     of 1, so SwapLimiter(0) then SwapLimiter(1) leaves evictions stopped.
//   - Add after [Queue.Shutdown] reports false, and Shutdown
//     cancels the running calls' context; upstream keeps accepting work
//     after CancelAndWait and never cancels.
//   - Bounded workers: at most GOMAXPROCS calls run at once unless
//     [Options.Workers] says otherwise; upstream starts a goroutine per item
//     without bound (a Workers as large as the items comes closest).
//   - Retries: upstream never retries in the queue and drops an eviction
//     whose work failed; [Options.Retry] adds durable retries with
//     exponential backoff, off by default. Errors go to [Options.OnError];
//     upstream logs them.
//   - Introspection: [Queue.Get] returns a value copy with an explicit
//     [State] for pending and running items; upstream's GetWorkerUnsafe
//     returns a live pointer, and nil for an item started at once.
//   - [RateLimited.SetRate] does not wait for a running Try (upstream's
//     SwapLimiter waits behind every API call Try makes); Try calls still do
//     not overlap. [RateLimited.NextDue] and [RateLimited.NextToken] let a
//     caller sleep until the next value is due and the bucket holds a token
//     instead of polling every 100 ms.
package timedqueue
