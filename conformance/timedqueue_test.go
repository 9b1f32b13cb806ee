package conformance_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/util/flowcontrol"
	nodescheduler "k8s.io/kubernetes/pkg/controller/nodelifecycle/scheduler"
	"k8s.io/kubernetes/pkg/controller/tainteviction"
	testingclock "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/conformance/internal/gen"
	"github.com/evictkit/eviction/timedqueue"
)

// runLog records work calls as "key@fireAt", safe for concurrent use.
type runLog struct {
	mu   sync.Mutex
	runs []string
}

func (l *runLog) add(key string, fireAt time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runs = append(l.runs, fmt.Sprintf("%s@%v", key, fireAt.Sub(gen.Epoch)))
}

// inOrder returns the calls in the order they were made.
func (l *runLog) inOrder() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.runs)
}

// sorted returns the calls sorted: upstream starts every due item in its
// own goroutine, so the order of calls due at the same step is open.
func (l *runLog) sorted() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.runs)
	slices.Sort(out)
	return out
}

// queuePair is upstream's TimedWorkerQueue and the library's Queue, each on
// its own fake clock, stepped together. Work calls return at once, so that
// between operations nothing is running: the comparison stays outside the
// deliberate differences that concern running items (what Cancel reports
// and what a finishing call removes) and, with createdAt always the current
// time, outside the absolute fire time.
type queuePair struct {
	t        tester
	upClock  *testingclock.FakeClock
	upQ      *tainteviction.TimedWorkerQueue
	upRuns   runLog
	ourClock *testingclock.FakeClock
	ourQ     *timedqueue.Queue[string, struct{}]
	ourRuns  runLog
	history  []string
}

// newQueuePair returns a pair at gen.Epoch. The library's queue has more
// workers than a test has items, so none waits for one, as upstream starts
// a goroutine per item, unless opts (applied last) set a bound.
func newQueuePair(t tester, opts ...timedqueue.Options[string]) *queuePair {
	p := &queuePair{t: t, upClock: testingclock.NewFakeClock(gen.Epoch), ourClock: testingclock.NewFakeClock(gen.Epoch)}
	o := timedqueue.Options[string]{Workers: 1 << 16}
	if len(opts) > 0 {
		o = opts[0]
	}
	o.Clock = p.ourClock
	p.upQ = tainteviction.CreateWorkerQueueWithClock(func(_ context.Context, fireAt time.Time, args *tainteviction.WorkArgs) error {
		p.upRuns.add(args.KeyFromWorkArgs(), fireAt)
		return nil
	}, p.upClock)
	p.ourQ = timedqueue.New(func(_ context.Context, it timedqueue.Item[string, struct{}]) error {
		p.ourRuns.add(it.Key, it.FireAt)
		return nil
	}, o)
	return p
}

// settle waits until both queues have finished the work that is due.
func (p *queuePair) settle() {
	p.upQ.WaitRunning()
	if err := p.ourQ.Idle(context.Background()); err != nil {
		p.t.Fatal(err)
	}
}

func (p *queuePair) fail(format string, args ...any) {
	p.t.Fatalf("%s\nafter: %s", fmt.Sprintf(format, args...), strings.Join(p.history, "; "))
}

func workArgs(key string) *tainteviction.WorkArgs {
	ns, name, _ := strings.Cut(key, "/")
	return tainteviction.NewWorkArgs(name, ns)
}

// check compares the queued item of every key and the calls made so far.
func (p *queuePair) check(keys []string) {
	for _, k := range keys {
		var want, got string
		if w := p.upQ.GetWorkerUnsafe(k); w != nil {
			want = fmt.Sprintf("pending (created %v, fire %v)", w.CreatedAt.Sub(gen.Epoch), w.FireAt.Sub(gen.Epoch))
		}
		if it, ok := p.ourQ.Get(k); ok {
			got = fmt.Sprintf("%v (created %v, fire %v)", it.State, it.CreatedAt.Sub(gen.Epoch), it.FireAt.Sub(gen.Epoch))
			got = strings.Replace(got, timedqueue.Pending.String(), "pending", 1)
		}
		if got != want {
			p.fail("Get(%q): upstream %q, evictkit %q", k, want, got)
		}
	}
	if want, got := p.upRuns.sorted(), p.ourRuns.sorted(); !slices.Equal(got, want) {
		p.fail("work calls: upstream %q, evictkit %q", want, got)
	}
}

// TestTimedQueue runs random sequences of Add, UpdateWork (the library's
// Cancel and Add), Cancel and clock steps against both queues and compares, after every
// operation, the results, the queued items and the work calls.
func TestTimedQueue(t *testing.T) {
	keys := []string{"ns/a", "ns/b", "/a", "ns/c"}
	rapid.Check(t, func(t *rapid.T) {
		p := newQueuePair(t)
		delay := rapid.SampledFrom([]time.Duration{-2 * time.Second, -time.Nanosecond, 0, time.Nanosecond,
			time.Second, 1500 * time.Millisecond, 3 * time.Second, 10 * time.Second})
		for i := range rapid.IntRange(1, 30).Draw(t, "ops") {
			key := rapid.SampledFrom(keys).Draw(t, fmt.Sprintf("key%d", i))
			now := p.upClock.Now()
			switch op := rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("op%d", i)); op {
			case 0:
				d := delay.Draw(t, fmt.Sprintf("delay%d", i))
				p.history = append(p.history, fmt.Sprintf("Add(%s, +%v)", key, d))
				wantAdded := p.upQ.GetWorkerUnsafe(key) == nil // nothing is running between operations
				p.upQ.AddWork(context.Background(), workArgs(key), now, now.Add(d))
				if got := p.ourQ.Add(key, struct{}{}, now, now.Add(d)); got != wantAdded {
					p.fail("Add(%q): upstream adds %v, evictkit %v", key, wantAdded, got)
				}
			case 1:
				d := delay.Draw(t, fmt.Sprintf("delay%d", i))
				p.history = append(p.history, fmt.Sprintf("UpdateWork(%s, +%v)", key, d))
				// UpdateWork reports nothing; it reschedules unless the
				// pending item already fires then.
				w := p.upQ.GetWorkerUnsafe(key)
				wantReplaced := w == nil || !w.FireAt.Equal(now.Add(d))
				p.upQ.UpdateWork(context.Background(), workArgs(key), now, now.Add(d))
				// The library has no UpdateWork: a caller reschedules
				// with Cancel and Add, unless the item already fires then.
				got := false
				if it, ok := p.ourQ.Get(key); !ok || !it.FireAt.Equal(now.Add(d)) {
					p.ourQ.Cancel(key)
					got = p.ourQ.Add(key, struct{}{}, now, now.Add(d))
				}
				if got != wantReplaced {
					p.fail("UpdateWork(%q): upstream reschedules %v, evictkit %v", key, wantReplaced, got)
				}
			case 2:
				p.history = append(p.history, fmt.Sprintf("Cancel(%s)", key))
				want := p.upQ.CancelWork(logger, key)
				if got := p.ourQ.Cancel(key); got != want {
					p.fail("Cancel(%q): upstream %v, evictkit %v", key, want, got)
				}
			case 3:
				d := delay.Draw(t, fmt.Sprintf("step%d", i)).Abs()
				p.history = append(p.history, fmt.Sprintf("Step(%v)", d))
				p.upClock.Step(d)
				p.ourClock.Step(d)
			}
			p.settle()
			p.check(keys)
		}
	})
}

// TestTimedQueueDifferences asserts the library's side of the deliberate
// differences of the timed queue (absolute fire times, running items, FIFO
// among equal fire times, no work after Shutdown), each beside what upstream
// does with the same operations (TestRateLimitedQueueDifferences has those
// of the rate-limited queue).
func TestTimedQueueDifferences(t *testing.T) {
	t.Run("absolute fire time", func(t *testing.T) {
		// Add(k, now-400ms, now-200ms): upstream waits fireAt-createdAt =
		// 200ms from the call; the library runs it at once (already due).
		p := newQueuePair(t)
		now := p.upClock.Now()
		p.upQ.AddWork(context.Background(), workArgs("ns/k"), now.Add(-400*time.Millisecond), now.Add(-200*time.Millisecond))
		p.ourQ.Add("ns/k", struct{}{}, now.Add(-400*time.Millisecond), now.Add(-200*time.Millisecond))
		p.settle()
		if up, ours := len(p.upRuns.sorted()), len(p.ourRuns.sorted()); up != 0 || ours != 1 {
			t.Fatalf("before any step: upstream ran %d (want 0), evictkit %d (want 1)", up, ours)
		}
		p.upClock.Step(200 * time.Millisecond)
		p.settle()
		if up := len(p.upRuns.sorted()); up != 1 {
			t.Fatalf("upstream ran %d after 200ms, want 1", up)
		}
	})
	t.Run("running items", func(t *testing.T) {
		upClock, ourClock := testingclock.NewFakeClock(gen.Epoch), testingclock.NewFakeClock(gen.Epoch)
		release := make(chan struct{})
		started := make(chan string, 4)
		var upRuns, ourRuns runLog
		upQ := tainteviction.CreateWorkerQueueWithClock(func(_ context.Context, fireAt time.Time, args *tainteviction.WorkArgs) error {
			started <- "up"
			<-release
			upRuns.add(args.KeyFromWorkArgs(), fireAt)
			return nil
		}, upClock)
		ourQ := timedqueue.New(func(_ context.Context, it timedqueue.Item[string, struct{}]) error {
			started <- "ours"
			<-release
			ourRuns.add(it.Key, it.FireAt)
			return nil
		}, timedqueue.Options[string]{Clock: ourClock})
		now := gen.Epoch
		// A timer-started item, running (blocked).
		upQ.AddWork(context.Background(), workArgs("ns/k"), now, now.Add(time.Second))
		ourQ.Add("ns/k", struct{}{}, now, now.Add(time.Second))
		upClock.Step(time.Second)
		ourClock.Step(time.Second)
		<-started
		<-started
		// Cancel of a running item: upstream's CancelWork reports true for a timer-started item
		// that is already running; the library's Cancel reports false.
		if !upQ.CancelWork(logger, "ns/k") {
			t.Fatal("upstream CancelWork of a running timer-started item: false, expected true")
		}
		if ourQ.Cancel("ns/k") {
			t.Fatal("evictkit Cancel of a running item: true, want false")
		}
		// A new item under the same key, then the first call returns.
		now = now.Add(time.Second)
		upQ.AddWork(context.Background(), workArgs("ns/k"), now, now.Add(time.Second))
		ourQ.Add("ns/k", struct{}{}, now, now.Add(time.Second))
		release <- struct{}{}
		release <- struct{}{}
		upQ.WaitRunning()
		if err := ourQ.Idle(context.Background()); err != nil {
			t.Fatal(err)
		}
		// A finishing call: upstream's completion deletes whatever the key holds, the new
		// pending item included (race R1), so it can no longer be seen or
		// cancelled; the library removes only its own item.
		if upQ.GetWorkerUnsafe("ns/k") != nil {
			t.Fatal("upstream still lists the new item; expected race R1 to drop it")
		}
		if it, ok := ourQ.Get("ns/k"); !ok || it.State != timedqueue.Pending || !it.FireAt.Equal(now.Add(time.Second)) {
			t.Fatalf("evictkit Get after the first call returned: %+v, %v; want the new pending item", it, ok)
		}
		if !ourQ.Cancel("ns/k") {
			t.Fatal("evictkit Cancel of the new pending item: false, want true")
		}
		close(release)
	})
	t.Run("FIFO among equal fire times", func(t *testing.T) {
		// Five items due at the same time, one worker. Upstream's
		// TimedWorkerQueue arms one timer per item and starts each due item
		// in a goroutine of its own, so the order in which work calls start
		// is whatever the timers and the Go scheduler make it: only the set
		// is upstream's answer. The library starts them in (FireAt,
		// insertion) order.
		p := newQueuePair(t, timedqueue.Options[string]{Workers: 1})
		keys := []string{"ns/a", "ns/b", "ns/c", "ns/d", "ns/e"}
		fireAt := gen.Epoch.Add(time.Second)
		for _, k := range keys {
			p.upQ.AddWork(context.Background(), workArgs(k), gen.Epoch, fireAt)
			p.ourQ.Add(k, struct{}{}, gen.Epoch, fireAt)
		}
		p.upClock.Step(time.Second)
		p.ourClock.Step(time.Second)
		p.settle()
		if got := len(p.upRuns.sorted()); got != len(keys) {
			t.Fatalf("upstream ran %d items, want %d", got, len(keys))
		}
		want := make([]string, len(keys))
		for i, k := range keys {
			want[i] = fmt.Sprintf("%s@%v", k, time.Second)
		}
		if got := p.ourRuns.inOrder(); !slices.Equal(got, want) {
			t.Fatalf("evictkit ran %q, want insertion order %q", got, want)
		}
	})
	t.Run("add after shutdown", func(t *testing.T) {
		upQ := tainteviction.CreateWorkerQueueWithClock(func(context.Context, time.Time, *tainteviction.WorkArgs) error { return nil },
			testingclock.NewFakeClock(gen.Epoch))
		ourQ := timedqueue.New(func(context.Context, timedqueue.Item[string, struct{}]) error { return nil },
			timedqueue.Options[string]{Clock: testingclock.NewFakeClock(gen.Epoch)})
		upQ.CancelAndWait()
		if err := ourQ.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		upQ.AddWork(context.Background(), workArgs("ns/k"), gen.Epoch, gen.Epoch.Add(time.Hour))
		if upQ.GetWorkerUnsafe("ns/k") == nil {
			t.Fatal("upstream refused work after CancelAndWait; expected it to accept")
		}
		if ourQ.Add("ns/k", struct{}{}, gen.Epoch, gen.Epoch.Add(time.Hour)) {
			t.Fatal("evictkit accepted work after Shutdown")
		}
	})
}

// TestRateLimitedQueueDifferences asserts the library's side of the
// deliberate differences of the rate-limited queue (FIFO among equal process
// times, and resuming from a stopped limiter) beside upstream's RateLimitedTimedQueue doing the same.
func TestRateLimitedQueueDifferences(t *testing.T) {
	t.Run("FIFO among equal process times", func(t *testing.T) {
		// a, b, c, d, e added at the same clock reading, so with the same
		// ProcessAt, under limiters that accept every draw. Upstream's
		// UniqueQueue is a container/heap ordered by ProcessAt alone, whose
		// pops leave equal values in heap order: a e d c b. The library
		// keeps insertion order among equal times: a b c d e.
		upClock := testingclock.NewFakeClock(gen.Epoch)
		restore := nodescheduler.SetNow(upClock.Now)
		defer restore()
		upQ := nodescheduler.NewRateLimitedTimedQueue(flowcontrol.NewFakeAlwaysRateLimiter())
		ourQ := timedqueue.NewRateLimited[string](float32(math.Inf(1)))
		values := []string{"a", "b", "c", "d", "e"}
		for _, v := range values {
			upQ.Add(v, nil)
			ourQ.Add(gen.Epoch, v, nil)
		}
		var up, ours []string
		upQ.Try(logger, func(tv nodescheduler.TimedValue) (bool, time.Duration) {
			up = append(up, tv.Value)
			return true, 0
		})
		ourQ.Try(gen.Epoch, func(tv timedqueue.TimedValue[string]) (bool, time.Duration) {
			ours = append(ours, tv.Value)
			return true, 0
		})
		if want := []string{"a", "e", "d", "c", "b"}; !slices.Equal(up, want) {
			t.Fatalf("upstream processed %q, expected its heap order %q", up, want)
		}
		if !slices.Equal(ours, values) {
			t.Fatalf("evictkit processed %q, want insertion order %q", ours, values)
		}
	})
	t.Run("resume from a stopped limiter at qps 1", func(t *testing.T) {
		// SwapLimiter(0) then SwapLimiter(1) on a queue at qps 1. Upstream
		// installs client-go's "never" limiter for 0, which reports QPS 1,
		// so the swap to 1 finds the rate unchanged and does nothing: the
		// queue stays stopped for good. The library remembers the configured
		// rate (0 once stopped) and resumes at 1, with an empty bucket (the
		// stopped limiter had no token to hand over), so the first value
		// goes a second later.
		upClock, ourClock := testingclock.NewFakeClock(gen.Epoch), testingclock.NewFakeClock(gen.Epoch)
		restore := nodescheduler.SetNow(upClock.Now)
		defer restore()
		upQ := nodescheduler.NewRateLimitedTimedQueue(flowcontrol.NewTokenBucketRateLimiterWithClock(1, 1, upClock))
		ourQ := timedqueue.NewRateLimited[string](1)
		upQ.SwapLimiter(0)
		upQ.SwapLimiter(1)
		ourQ.SetRate(ourClock.Now(), 0)
		ourQ.SetRate(ourClock.Now(), 1)
		if up := upQ.Limiter().QPS(); up != 1 {
			t.Fatalf("upstream's stopped queue reports QPS %v, expected 1", up)
		}
		if got := ourQ.QPS(); got != 1 {
			t.Fatalf("evictkit QPS after SetRate(0), SetRate(1): %v, want 1", got)
		}
		upQ.Add("a", nil)
		ourQ.Add(ourClock.Now(), "a", nil)
		try := func() (up, ours int) {
			upQ.Try(logger, func(nodescheduler.TimedValue) (bool, time.Duration) { up++; return true, 0 })
			return up, ourQ.Try(ourClock.Now(), func(timedqueue.TimedValue[string]) (bool, time.Duration) { return true, 0 })
		}
		if up, ours := try(); up != 0 || ours != 0 {
			t.Fatalf("at once: upstream processed %d (expected 0), evictkit %d (want 0: the new bucket starts empty)", up, ours)
		}
		upClock.Step(time.Second)
		ourClock.Step(time.Second)
		if up, ours := try(); up != 0 || ours != 1 {
			t.Fatalf("after 1s: upstream processed %d (expected 0: still stopped), evictkit %d (want 1)", up, ours)
		}
		upClock.Step(time.Hour)
		if up, _ := try(); up != 0 {
			t.Fatalf("after an hour upstream processed %d, expected 0: stopped for good", up)
		}
	})
}

// TestRateLimitedQueue runs random sequences of Add, Remove, Try and clock
// steps against upstream's RateLimitedTimedQueue (on a token bucket with a
// fake clock, and its package clock pointed at the same fake clock) and
// the library's RateLimited, and compares results and every call of the
// Try function. No two values ever share a process time, since equal
// process times are a deliberate difference (upstream's heap order
// vs FIFO, asserted in TestRateLimitedQueueDifferences): adds follow a 1ms step, so their times are whole milliseconds
// plus a few nanoseconds, and the n-th call of the Try function asks to be
// retried after 333µs + n µs, which puts every retry at a distinct time
// away from whole milliseconds.
func TestRateLimitedQueue(t *testing.T) {
	values := []string{"a", "b", "c", "d"}
	rapid.Check(t, func(t *rapid.T) {
		qps := rapid.SampledFrom([]float32{1, 10, 1000}).Draw(t, "qps")
		upClock, ourClock := testingclock.NewFakeClock(gen.Epoch), testingclock.NewFakeClock(gen.Epoch)
		restore := nodescheduler.SetNow(upClock.Now)
		defer restore()
		upQ := nodescheduler.NewRateLimitedTimedQueue(flowcontrol.NewTokenBucketRateLimiterWithClock(qps, 1, upClock))
		ourQ := timedqueue.NewRateLimited[string](qps)
		var history []string
		fail := func(format string, args ...any) {
			t.Fatalf("%s\nafter: %s", fmt.Sprintf(format, args...), strings.Join(history, "; "))
		}
		// outcome decides, per value and attempt, whether the Try
		// function succeeds and how long a failure waits.
		calls := 0 // Try function calls so far, the same on both sides while they agree
		outcome := map[string][]bool{}
		for _, v := range values {
			outcome[v] = rapid.SliceOfN(rapid.Bool(), 4, 4).Draw(t, "outcome."+v)
		}
		for i := range rapid.IntRange(1, 30).Draw(t, "ops") {
			v := rapid.SampledFrom(values).Draw(t, fmt.Sprintf("value%d", i))
			switch rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("op%d", i)) {
			case 0:
				upClock.Step(time.Millisecond)
				ourClock.Step(time.Millisecond)
				history = append(history, "Add("+v+")")
				if want, got := upQ.Add(v, "uid-"+v), ourQ.Add(ourClock.Now(), v, "uid-"+v); got != want {
					fail("Add(%q): upstream %v, evictkit %v", v, want, got)
				}
			case 1:
				history = append(history, "Remove("+v+")")
				if want, got := upQ.Remove(v), ourQ.Remove(v); got != want {
					fail("Remove(%q): upstream %v, evictkit %v", v, want, got)
				}
			case 2:
				history = append(history, "Try")
				var upCalls, ourCalls []string
				start := calls
				call := func(log *[]string, n *int, value string, uid any, added, process time.Time, counts map[string]int) (bool, time.Duration) {
					*log = append(*log, fmt.Sprintf("%s(%v) added %v process %v", value, uid, added.Sub(gen.Epoch), process.Sub(gen.Epoch)))
					attempt := counts[value]
					counts[value]++
					*n++
					return outcome[value][attempt%4], 333*time.Microsecond + time.Duration(*n)*time.Microsecond
				}
				upN, ourN := start, start
				upAttempts, ourAttempts := map[string]int{}, map[string]int{}
				upQ.Try(logger, func(tv nodescheduler.TimedValue) (bool, time.Duration) {
					return call(&upCalls, &upN, tv.Value, tv.UID, tv.AddedAt, tv.ProcessAt, upAttempts)
				})
				ourQ.Try(ourClock.Now(), func(tv timedqueue.TimedValue[string]) (bool, time.Duration) {
					return call(&ourCalls, &ourN, tv.Value, tv.UID, tv.AddedAt, tv.ProcessAt, ourAttempts)
				})
				calls = upN
				if !slices.Equal(ourCalls, upCalls) {
					fail("Try calls: upstream %q, evictkit %q", upCalls, ourCalls)
				}
			case 3:
				d := rapid.SampledFrom([]time.Duration{time.Nanosecond, time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, time.Second}).Draw(t, fmt.Sprintf("step%d", i))
				history = append(history, fmt.Sprintf("Step(%v)", d))
				upClock.Step(d)
				ourClock.Step(d)
			}
		}
	})
}
