package timedqueue

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Queue runs one work call per key, no earlier than the key's fire time, on
// a bounded pool of goroutines, and never two calls for one key at once. It
// keeps its pending items in a [Heap], arms one clock timer for the
// earliest of them, and holds no goroutine while nothing is pending or
// running. All methods are safe for concurrent use, also from inside a work
// call.
type Queue[K comparable, V any] struct {
	work    func(ctx context.Context, it Item[K, V]) error
	clock   clock.Clock
	ctx     context.Context
	cancel  context.CancelFunc // cancels ctx; called by Shutdown
	workers int                // the bound on running calls, at least 1
	onError func(K, error)
	retry   Retry
	name    string

	mu      sync.Mutex
	h       heap[K, V]
	m       *metrics       // nil: no metrics
	active  int            // goroutines running work calls
	closed  bool           // Shutdown was called
	timer   clock.Timer    // the queue's one timer; nil until first armed
	armed   bool           // timer is set for the wall time armedAt
	armedAt int64          // the time the timer is set for, as the heap keeps times
	batch   bool           // a Batch runs: dispatching waits until it ends
	pump    bool           // the head changed during the Batch
	loop    bool           // the timer goroutine is alive
	kick    chan struct{}  // wakes the timer goroutine to re-check
	idle    chan struct{}  // closed when active drops to 0; nil if nobody waits
	bg      sync.WaitGroup // the timer and metrics goroutines
}

// New returns a queue that calls work(ctx, it) once for every item added,
// no earlier than the item's fire time, with a copy of the item (its
// original FireAt, its value, State Running). A nil work does nothing. The
// zero [Options] are a queue on the real clock with GOMAXPROCS workers. V
// is the type of the value stored with each key: struct{} for none.
func New[K comparable, V any](work func(ctx context.Context, it Item[K, V]) error, opts Options[K]) *Queue[K, V] {
	parent := opts.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancel(parent)
	q := &Queue[K, V]{
		work:    work,
		clock:   opts.Clock,
		ctx:     ctx,
		cancel:  cancel,
		workers: opts.workers(),
		onError: opts.OnError,
		retry:   opts.Retry,
		name:    opts.Name,
		m:       newMetrics(opts.Metrics, opts.Name),
		kick:    make(chan struct{}, 1),
	}
	if q.clock == nil {
		q.clock = clock.RealClock{}
	}
	if q.work == nil {
		q.work = func(context.Context, Item[K, V]) error { return nil }
	}
	return q
}

// Name returns the queue's name from [Options.Name].
func (q *Queue[K, V]) Name() string { return q.name }

// Add schedules work for key, with value, due once the clock reaches
// fireAt, and reports true. It reports false and changes nothing when key is already pending,
// or after [Queue.Shutdown]: the first add wins. When key's call is running
// (or was cancelled and still runs), Add reports true and holds the new
// item: it is pending (Get and Cancel act on it) but starts only
// after that call returns, so that one key never runs twice at once. An
// item due already is dispatched at once, without waiting for the clock to
// move. value and createdAt are only stored and handed back. O(log n).
func (q *Queue[K, V]) Add(key K, value V, createdAt, fireAt time.Time) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return !q.closed && q.addLocked(key, q.h.tag(key), value, createdAt, fireAt)
}

// addLocked adds a new item for key, whose tag is tag, as [Queue.Add] does
// on an open queue.
func (q *Queue[K, V]) addLocked(key K, tag uint32, value V, createdAt, fireAt time.Time) bool {
	s, ok, held := q.h.add(key, tag, value, createdAt, fireAt)
	if !ok {
		return false
	}
	q.m.add()
	if !held && q.h.at(s).pos == 0 { // a new head: it may be due, or need the timer
		q.headChangedLocked()
	}
	q.m.setDepth(q.h.Len())
	return true
}

// headChangedLocked dispatches what is due and sets the timer after the
// heap's head changed, or, during a [Queue.Batch], once it ends.
func (q *Queue[K, V]) headChangedLocked() {
	if q.batch {
		q.pump = true
		return
	}
	q.pumpLocked(q.clock.Now())
}

// Cancel removes key. A pending item never runs and Cancel reports true. A
// running call is not interrupted, but its key is released at once, so that
// a later Add may schedule a new item (held until the call returns); Cancel
// reports false then, as it does for an absent key. O(log n).
func (q *Queue[K, V]) Cancel(key K) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.cancelLocked(key, q.h.tag(key))
}

func (q *Queue[K, V]) cancelLocked(key K, tag uint32) bool {
	st, head := q.h.cancel(key, tag)
	if head && !q.armedForHeadLocked() { // the timer was set for the item just removed
		q.headChangedLocked()
	}
	if st == Pending {
		q.m.setDepth(q.h.Len())
	}
	return st == Pending
}

// armedForHeadLocked reports whether the timer is set for the due time of
// the first pending item: then nothing needs doing when the head changes,
// as when a cancel removes one of many items due at the same time. (An
// armed timer means the head was not due when it was set; if it is due by
// now, the timer fires and dispatches it.)
func (q *Queue[K, V]) armedForHeadLocked() bool {
	at, ok := q.h.headAt()
	return ok && q.armed && at == q.armedAt
}

// Get returns a copy of the item stored for key, pending or running; when a
// new item is held behind a running call, the new item. O(1).
func (q *Queue[K, V]) Get(key K) (Item[K, V], bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.h.Get(key)
}

// Len returns the number of keys the queue holds: pending items (held ones
// included) plus running calls whose key was not released. O(1).
func (q *Queue[K, V]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.h.Len() + q.h.running
}

// Idle dispatches every item that is due at the clock's current time and
// waits until no work call is running. It returns nil then, or the context's
// error (wrapped) if ctx ends first. After a fake clock's Step, Idle returns
// once everything that became due has run, including work that running
// calls added; with [Options.Workers] 1 the calls ran one at a time in (FireAt,
// insertion) order. A work call or error handler must not call Idle or
// Shutdown: it would wait for itself.
func (q *Queue[K, V]) Idle(ctx context.Context) error {
	q.mu.Lock()
	q.pumpLocked(q.clock.Now())
	ch := q.waitLocked()
	q.mu.Unlock()
	return wait(ctx, ch, "idle")
}

// Shutdown drops every pending item without running it, makes later Adds
// report false, cancels the context handed to running calls
// and waits until they have returned and the queue's own goroutines have
// exited. It returns nil then, or the context's error (wrapped) if ctx ends
// first. Calling it again waits again.
func (q *Queue[K, V]) Shutdown(ctx context.Context) error {
	q.mu.Lock()
	q.closed = true
	q.h.dropPending()
	q.m.setDepth(0)
	q.armLocked(q.clock.Now())
	ch := q.waitLocked()
	q.mu.Unlock()
	q.cancel()
	if err := wait(ctx, ch, "shutdown"); err != nil {
		return err
	}
	bg := make(chan struct{})
	go func() { q.bg.Wait(); close(bg) }()
	return wait(ctx, bg, "shutdown")
}

// ShuttingDown reports whether [Queue.Shutdown] has been called.
func (q *Queue[K, V]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// waitLocked returns a channel that is closed when no call runs (nil when
// none runs now).
func (q *Queue[K, V]) waitLocked() chan struct{} {
	if q.active == 0 {
		return nil
	}
	if q.idle == nil {
		q.idle = make(chan struct{})
	}
	return q.idle
}

func wait(ctx context.Context, ch chan struct{}, op string) error {
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("timedqueue: %s: %w", op, ctx.Err())
	}
}

// pumpLocked starts a call for every due item while a worker is free, then
// sets the timer for the next pending item.
func (q *Queue[K, V]) pumpLocked(now time.Time) {
	for q.active < q.workers {
		s, it, due, ok := q.h.start(now)
		if !ok {
			break
		}
		q.active++
		q.startedLocked(s, due, now)
		go q.run(s, it, now)
	}
	q.armLocked(now)
}

// armLocked makes the timer agree with the heap: set for the first pending
// item if it is not due yet, stopped otherwise (a due item waits for a busy
// worker, which picks it up when it finishes).
func (q *Queue[K, V]) armLocked(now time.Time) {
	if len(q.h.elems) == 0 || q.h.headDue(now) { // nothing pending, or a due item waits for a worker
		if q.armed {
			q.stopTimerLocked()
			q.armed = false
			if q.loop {
				q.wakeLoop() // let the timer goroutine exit
			}
		}
		return
	}
	if q.armedForHeadLocked() {
		return
	}
	at, _ := q.h.headAt()
	d := timeAt(at, time.UTC).Sub(now.Round(0))
	if q.timer == nil {
		q.timer = q.clock.NewTimer(d)
	} else {
		// Stop and drain first: a stale tick must never sit in the channel of
		// an armed timer (a fake clock blocks its Step on a full channel).
		q.stopTimerLocked()
		q.timer.Reset(d)
	}
	q.armed, q.armedAt = true, at
	if !q.loop {
		q.loop = true
		q.bg.Add(1)
		go q.timerLoop(q.timer)
	}
}

func (q *Queue[K, V]) stopTimerLocked() {
	q.timer.Stop()
	select {
	case <-q.timer.C():
	default:
	}
}

func (q *Queue[K, V]) wakeLoop() {
	select {
	case q.kick <- struct{}{}:
	default:
	}
}

// timerLoop is the queue's one timer goroutine: it lives while the timer is
// armed and dispatches when it fires.
func (q *Queue[K, V]) timerLoop(t clock.Timer) {
	for {
		fired := false
		select {
		case <-t.C():
			fired = true
		case <-q.kick:
		}
		q.mu.Lock()
		if fired {
			q.armed = false
		}
		q.pumpLocked(q.clock.Now())
		if !q.armed {
			q.loop = false
			q.mu.Unlock()
			q.bg.Done()
			return
		}
		q.mu.Unlock()
	}
}

// startedLocked records the start of the call in slot s, due since due,
// and keeps the running-time gauges fresh while calls run.
func (q *Queue[K, V]) startedLocked(s int32, due, now time.Time) {
	if q.m == nil {
		return
	}
	q.m.setDepth(q.h.Len())
	q.m.started(s, due, now)
	if q.m.runStarts != nil && !q.m.refreshLoop {
		q.m.refreshLoop = true
		q.bg.Add(1)
		go q.refreshLoop()
	}
}

// refreshLoop refreshes the running-time gauges every unfinishedPeriod of
// the queue's clock while a call runs.
func (q *Queue[K, V]) refreshLoop() {
	defer q.bg.Done()
	t := q.clock.NewTimer(unfinishedPeriod)
	defer t.Stop()
	for {
		select {
		case <-t.C():
		case <-q.ctx.Done():
		}
		q.mu.Lock()
		if len(q.m.runStarts) == 0 || q.ctx.Err() != nil {
			q.m.refreshLoop = false
			q.m.refresh(q.clock.Now())
			q.mu.Unlock()
			return
		}
		q.m.refresh(q.clock.Now())
		q.mu.Unlock()
		t.Reset(unfinishedPeriod)
	}
}

// run executes the item in slot s, started at start, then keeps taking due
// items until none is left. The error handler runs before the worker
// counts as done, so Idle and Shutdown also wait for it.
func (q *Queue[K, V]) run(s int32, it Item[K, V], start time.Time) {
	for {
		err := q.work(q.ctx, it)
		q.mu.Lock()
		now := q.clock.Now()
		q.m.finished(s, start, now)
		failed := false
		if err != nil && !q.closed && q.retry.retries(it.Attempts+1) {
			failed = !q.h.retry(s, now.Add(q.retry.Backoff(it.Attempts+1)))
			if !failed {
				q.m.retry()
			}
		} else {
			q.h.finish(s)
			failed = err != nil
		}
		q.m.setDepth(q.h.Len())
		if failed && q.onError != nil {
			q.armLocked(now)
			q.mu.Unlock()
			q.onError(it.Key, err)
			q.mu.Lock()
			now = q.clock.Now()
		}
		var ok bool
		var due time.Time
		s, it, due, ok = q.h.start(now)
		if ok {
			start = now
			q.startedLocked(s, due, now)
		} else {
			q.active--
			if q.active == 0 && q.idle != nil {
				close(q.idle)
				q.idle = nil
			}
		}
		q.armLocked(now)
		q.mu.Unlock()
		if !ok {
			return
		}
	}
}

// Batch is a [Queue] locked for a run of operations by [Queue.Batch]: it
// hands out an [Entry] per key.
type Batch[K comparable, V any] struct{ q *Queue[K, V] }

// Batch calls f with the queue locked, so that the operations f makes
// through b (as many as a node's pods need, say) take the lock once and
// dispatch and set the timer once, when f returns. f must not call the
// queue's own methods (it would wait for its own lock), and b and its
// entries must not be used after f returns.
func (q *Queue[K, V]) Batch(f func(b Batch[K, V])) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.batch = true
	defer func() {
		q.batch = false
		if q.pump {
			q.pump = false
			q.pumpLocked(q.clock.Now())
		}
	}()
	f(Batch[K, V]{q})
}

// Entry returns key's entry in the batch. It hashes key once for all the
// entry's operations: a Get followed by a Cancel and an Add, say, as a
// controller's reconcile step makes them.
func (b Batch[K, V]) Entry(key K) Entry[K, V] {
	return Entry[K, V]{q: b.q, key: key, tag: b.q.h.tag(key)}
}

// Entry is one key of a [Batch]. Its methods act as the queue's methods of
// the same name on that key; items that become due start once the batch
// ends.
type Entry[K comparable, V any] struct {
	q   *Queue[K, V]
	key K
	tag uint32
}

// Get is [Queue.Get] of the entry's key.
func (e Entry[K, V]) Get() (Item[K, V], bool) { return e.q.h.get(e.key, e.tag) }

// Add is [Queue.Add] of the entry's key.
func (e Entry[K, V]) Add(value V, createdAt, fireAt time.Time) bool {
	return !e.q.closed && e.q.addLocked(e.key, e.tag, value, createdAt, fireAt)
}

// Cancel is [Queue.Cancel] of the entry's key.
func (e Entry[K, V]) Cancel() bool { return e.q.cancelLocked(e.key, e.tag) }
