package timedqueue

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	testclock "k8s.io/utils/clock/testing"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// ran is one work call as the work function saw it.
type ran[K comparable] struct {
	Key    K
	FireAt time.Time
	At     time.Time // the fake clock when the call started
}

// env is a queue on a fake clock whose work records every call. Work for a
// key in gates blocks until the gate is closed, after signalling started.
type env[K comparable] struct {
	t       *testing.T
	clk     *testclock.FakeClock
	q       *Queue[K, struct{}]
	mu      sync.Mutex
	runs    []ran[K]
	gates   map[K]chan struct{}
	started chan K
	fail    map[K]error
	also    func(K) // extra action inside work
	errs    []error
}

func newEnv[K comparable](t *testing.T, opts ...Options[K]) *env[K] {
	t.Helper()
	e := &env[K]{t: t, clk: testclock.NewFakeClock(t0), gates: map[K]chan struct{}{}, started: make(chan K, 16), fail: map[K]error{}}
	var o Options[K]
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Clock == nil {
		o.Clock = e.clk
	}
	o.OnError = func(k K, err error) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.errs = append(e.errs, err)
	}
	e.q = New(e.work, o)
	t.Cleanup(func() {
		for _, g := range e.gates {
			select {
			case <-g:
			default:
				close(g)
			}
		}
		require.NoError(t, e.q.Shutdown(context.Background()))
	})
	return e
}

func (e *env[K]) work(_ context.Context, it Item[K, struct{}]) error {
	k, fireAt := it.Key, it.FireAt
	e.mu.Lock()
	e.runs = append(e.runs, ran[K]{Key: k, FireAt: fireAt, At: e.clk.Now()})
	g := e.gates[k]
	err := e.fail[k]
	also := e.also
	e.mu.Unlock()
	if also != nil {
		also(k)
	}
	if g != nil {
		e.started <- k
		<-g
	}
	return err
}

// gate makes the next work call for k block until the returned func runs.
func (e *env[K]) gate(k K) (release func()) {
	g := make(chan struct{})
	e.mu.Lock()
	e.gates[k] = g
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		delete(e.gates, k)
		e.mu.Unlock()
		close(g)
	}
}

func (e *env[K]) idle() {
	e.t.Helper()
	require.NoError(e.t, e.q.Idle(context.Background()))
}

func (e *env[K]) step(d time.Duration) {
	e.t.Helper()
	e.clk.Step(d)
	e.idle()
}

// keys returns the keys of the calls so far, in start order.
func (e *env[K]) keys() []K {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]K, len(e.runs))
	for i, r := range e.runs {
		out[i] = r.Key
	}
	return out
}

func (e *env[K]) count(k K) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, r := range e.runs {
		if r.Key == k {
			n++
		}
	}
	return n
}

func sorted[K string](ks []K) []K { s := slices.Clone(ks); slices.Sort(s); return s }

var five = []string{"1", "2", "3", "4", "5"}

// TestQueueRules covers the queue's rules one case at a time, the
// taint-eviction controller's use of it included.
func TestQueueRules(t *testing.T) {
	tests := []struct {
		name string
		opts Options[string]
		run  func(t *testing.T, e *env[string])
	}{
		{name: "five keys due at add run once without a step", run: func(t *testing.T, e *env[string]) {
			for _, k := range five {
				require.True(t, e.q.Add(k, struct{}{}, t0, t0))
			}
			e.idle()
			assert.Equal(t, five, sorted(e.keys()))
			assert.Equal(t, t0, e.clk.Now(), "no step happened")
			assert.Zero(t, e.q.Len())
		}},
		{name: "second adds are refused and each key runs once", run: func(t *testing.T, e *env[string]) {
			for _, k := range five {
				require.True(t, e.q.Add(k, struct{}{}, t0, t0.Add(10*time.Second)))
			}
			for _, k := range five {
				assert.False(t, e.q.Add(k, struct{}{}, t0, t0.Add(10*time.Second)))
			}
			e.idle()
			assert.Empty(t, e.keys())
			e.step(11 * time.Second)
			assert.Equal(t, five, sorted(e.keys()))
		}},
		{name: "cancelled keys never run, a second cancel is false", run: func(t *testing.T, e *env[string]) {
			for _, k := range five {
				e.q.Add(k, struct{}{}, t0, t0.Add(10*time.Second))
			}
			assert.True(t, e.q.Cancel("2"))
			assert.True(t, e.q.Cancel("4"))
			e.step(11 * time.Second)
			assert.Equal(t, []string{"1", "3", "5"}, sorted(e.keys()))
			assert.False(t, e.q.Cancel("2"))
		}},
		{name: "a cancelled key can be added again", run: func(t *testing.T, e *env[string]) {
			for _, k := range five {
				e.q.Add(k, struct{}{}, t0, t0.Add(10*time.Second))
			}
			e.q.Cancel("2")
			e.q.Cancel("4")
			assert.True(t, e.q.Add("2", struct{}{}, t0, t0.Add(10*time.Second)))
			e.step(11 * time.Second)
			assert.Equal(t, []string{"1", "2", "3", "5"}, sorted(e.keys()))
		}},
		{name: "the first add wins over an earlier fire time", run: func(t *testing.T, e *env[string]) {
			require.True(t, e.q.Add("k", struct{}{}, t0, t0.Add(600*time.Millisecond)))
			assert.False(t, e.q.Add("k", struct{}{}, t0, t0.Add(100*time.Millisecond)))
			e.step(100 * time.Millisecond)
			assert.Empty(t, e.keys())
			e.step(500 * time.Millisecond)
			require.Len(t, e.runs, 1)
			assert.Equal(t, t0.Add(600*time.Millisecond), e.runs[0].FireAt)
		}},
		{name: "a past fire time runs at once and is handed over unchanged", run: func(t *testing.T, e *env[string]) {
			require.True(t, e.q.Add("k", struct{}{}, t0, t0.Add(-time.Second)))
			e.idle()
			require.Len(t, e.runs, 1)
			assert.Equal(t, t0.Add(-time.Second), e.runs[0].FireAt)
			assert.Equal(t, t0, e.runs[0].At)
		}},
		{name: "fire time is absolute", run: func(t *testing.T, e *env[string]) {
			// Upstream waits fireAt−createdAt = 200 ms from the AddWork call
			// and runs at t0+200ms; the library runs at once.
			require.True(t, e.q.Add("k", struct{}{}, t0.Add(-400*time.Millisecond), t0.Add(-200*time.Millisecond)))
			e.idle()
			require.Len(t, e.runs, 1)
			assert.Equal(t, t0, e.runs[0].At)
		}},
		{name: "get shows a pending item and forgets it after its run", run: func(t *testing.T, e *env[string]) {
			created, fire := t0.Add(-time.Second), t0.Add(time.Second)
			require.True(t, e.q.Add("k", struct{}{}, created, fire))
			it, ok := e.q.Get("k")
			require.True(t, ok)
			assert.Equal(t, Item[string, struct{}]{Key: "k", CreatedAt: created, FireAt: fire, State: Pending}, it)
			_, ok = e.q.Get("absent")
			assert.False(t, ok)
			e.step(time.Second)
			_, ok = e.q.Get("k")
			assert.False(t, ok)
		}},
		{name: "an error reaches the handler once and is not retried", run: func(t *testing.T, e *env[string]) {
			errBoom := errors.New("boom")
			e.fail["k"] = errBoom
			require.True(t, e.q.Add("k", struct{}{}, t0, t0))
			e.idle()
			require.Len(t, e.errs, 1)
			assert.ErrorIs(t, e.errs[0], errBoom)
			_, ok := e.q.Get("k")
			assert.False(t, ok)
			e.step(time.Hour)
			assert.Equal(t, 1, e.count("k"), "no automatic rerun")
			delete(e.fail, "k")
			assert.True(t, e.q.Add("k", struct{}{}, t0, t0))
			e.idle()
			assert.Equal(t, 2, e.count("k"))
			assert.Len(t, e.errs, 1)
		}},
		{name: "a finished call keeps the newer item of its key", run: func(t *testing.T, e *env[string]) {
			// Upstream: the first call's completion deletes the new entry,
			// which still fires, is invisible to GetWorkerUnsafe and can no
			// longer be cancelled.
			release := e.gate("k")
			require.True(t, e.q.Add("k", struct{}{}, t0, t0))
			<-e.started
			// Upstream's CancelWork reports false here too (the item was
			// started at once), but true for a timer-started running item.
			assert.False(t, e.q.Cancel("k"), "cancel of a running call")
			require.True(t, e.q.Add("k", struct{}{}, t0, t0.Add(time.Second)))
			release()
			e.idle()
			it, ok := e.q.Get("k")
			require.True(t, ok)
			assert.Equal(t, Pending, it.State)
			assert.Equal(t, t0.Add(time.Second), it.FireAt)
			assert.True(t, e.q.Cancel("k"))
			e.step(time.Second)
			assert.Equal(t, 1, e.count("k"))
		}},
		{name: "an add on a running key is held and runs once, after the call returns", run: func(t *testing.T, e *env[string]) {
			release := e.gate("k")
			require.True(t, e.q.Add("k", struct{}{}, t0, t0))
			<-e.started
			require.True(t, e.q.Add("k", struct{}{}, t0, t0), "held behind the running call")
			it, ok := e.q.Get("k")
			require.True(t, ok)
			assert.Equal(t, Item[string, struct{}]{Key: "k", CreatedAt: t0, FireAt: t0, State: Pending}, it)
			assert.False(t, e.q.Add("k", struct{}{}, t0, t0), "the held item is pending: the first add wins")
			assert.Equal(t, 1, e.q.Len(), "one key")
			assert.Equal(t, 1, e.count("k"), "due, but held")
			release()
			e.idle()
			assert.Equal(t, 2, e.count("k"))
			assert.Zero(t, e.q.Len())
		}},
		{name: "a held item cancelled before the call returns never runs", run: func(t *testing.T, e *env[string]) {
			release := e.gate("k")
			require.True(t, e.q.Add("k", struct{}{}, t0, t0))
			<-e.started
			assert.False(t, e.q.Cancel("k"), "running: released, not cancelled")
			require.True(t, e.q.Add("k", struct{}{}, t0, t0))
			assert.True(t, e.q.Cancel("k"), "the held item is pending")
			require.True(t, e.q.Add("k", struct{}{}, t0, t0.Add(time.Second)))
			release()
			e.idle()
			assert.Equal(t, 1, e.count("k"))
			e.step(time.Second)
			assert.Equal(t, 2, e.count("k"), "the last held item ran at its time")
		}},
		{name: "shutdown drops pending, waits for running, refuses adds (upstream accepts them)", run: func(t *testing.T, e *env[string]) {
			release := e.gate("run")
			require.True(t, e.q.Add("run", struct{}{}, t0, t0))
			<-e.started
			for _, k := range []string{"a", "b", "c"} {
				require.True(t, e.q.Add(k, struct{}{}, t0, t0.Add(time.Second)))
			}
			cancelled, cancel := context.WithCancel(context.Background())
			cancel()
			err := e.q.Shutdown(cancelled)
			assert.ErrorIs(t, err, context.Canceled, "a call still runs")
			release()
			require.NoError(t, e.q.Shutdown(context.Background()))
			// Upstream accepts work after CancelAndWait; the library refuses it.
			assert.False(t, e.q.Add("d", struct{}{}, t0, t0))
			e.step(time.Hour)
			assert.Equal(t, []string{"run"}, e.keys())
			assert.Zero(t, e.q.Len())
		}},
		{name: "a step runs exactly the items it passes, earliest first", opts: Options[string]{Workers: 1}, run: func(t *testing.T, e *env[string]) {
			for i := 3; i >= 1; i-- {
				e.q.Add(strconv.Itoa(i), struct{}{}, t0, t0.Add(time.Duration(i)*time.Second))
			}
			e.step(2 * time.Second)
			assert.Equal(t, []string{"1", "2"}, e.keys())
			_, ok := e.q.Get("3")
			assert.True(t, ok)
		}},
		{name: "cancelling the head re-arms for the next item", run: func(t *testing.T, e *env[string]) {
			e.q.Add("A", struct{}{}, t0, t0.Add(time.Second))
			e.q.Add("B", struct{}{}, t0, t0.Add(5*time.Second))
			assert.True(t, e.q.Cancel("A"))
			e.step(time.Second)
			assert.Empty(t, e.keys())
			e.step(4 * time.Second)
			assert.Equal(t, []string{"B"}, e.keys())
		}},
		{name: "work may add and cancel on its own queue", run: func(t *testing.T, e *env[string]) {
			e.also = func(k string) {
				if k == "A" {
					assert.True(t, e.q.Add("B", struct{}{}, e.clk.Now(), e.clk.Now()))
					assert.True(t, e.q.Cancel("C"))
				}
			}
			e.q.Add("C", struct{}{}, t0, t0.Add(10*time.Second))
			e.q.Add("A", struct{}{}, t0, t0)
			e.idle()
			e.step(time.Minute)
			assert.Equal(t, []string{"A", "B"}, e.keys())
		}},
		{name: "one worker: no overlap, start order by fire time then insertion", opts: Options[string]{Workers: 1}, run: func(t *testing.T, e *env[string]) {
			var now, peak atomic.Int32
			e.also = func(string) {
				n := now.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				runtime.Gosched()
				now.Add(-1)
			}
			e.q.Add("x", struct{}{}, t0, t0.Add(3*time.Second))
			e.q.Add("y", struct{}{}, t0, t0.Add(time.Second))
			e.q.Add("z", struct{}{}, t0, t0.Add(time.Second))
			e.q.Add("w", struct{}{}, t0, t0.Add(2*time.Second))
			e.step(5 * time.Second)
			assert.Equal(t, []string{"y", "z", "w", "x"}, e.keys())
			assert.Equal(t, int32(1), peak.Load())
		}},
		{name: "many pending items: one timer, no goroutine per item", run: func(t *testing.T, e *env[string]) {
			n := 100_000
			if testing.Short() {
				n = 10_000
			}
			before := runtime.NumGoroutine()
			for i := range n {
				e.q.Add(strconv.Itoa(i), struct{}{}, t0, t0.Add(time.Hour+time.Duration(i)*time.Millisecond))
			}
			assert.Equal(t, n, e.q.Len())
			assert.LessOrEqual(t, runtime.NumGoroutine(), before+1, "only the timer goroutine")
			assert.Equal(t, 1, e.clk.Waiters(), "one clock timer")
		}},
		{name: "a later decision keeps the running schedule", run: func(t *testing.T, e *env[string]) {
			// The controller keeps an item created before now: it re-adds with
			// the old createdAt, which the first-add-wins rule ignores.
			require.True(t, e.q.Add("ns/pod", struct{}{}, t0, t0.Add(time.Second)))
			e.step(500 * time.Millisecond)
			it, ok := e.q.Get("ns/pod")
			require.True(t, ok)
			require.True(t, it.CreatedAt.Before(e.clk.Now()))
			assert.False(t, e.q.Add("ns/pod", struct{}{}, it.CreatedAt, e.clk.Now().Add(100*time.Second)))
			got, _ := e.q.Get("ns/pod")
			assert.Equal(t, it, got)
			e.step(500 * time.Millisecond)
			require.Len(t, e.runs, 1)
			assert.Equal(t, t0.Add(time.Second), e.runs[0].At)
		}},
		{name: "evict now: cancel and add at now runs at once", run: func(t *testing.T, e *env[string]) {
			require.True(t, e.q.Add("ns/pod", struct{}{}, t0, t0.Add(time.Second)))
			e.clk.Step(300 * time.Millisecond)
			t1 := e.clk.Now()
			assert.True(t, e.q.Cancel("ns/pod"))
			assert.True(t, e.q.Add("ns/pod", struct{}{}, t1, t1))
			e.idle()
			require.Len(t, e.runs, 1)
			assert.Equal(t, t1, e.runs[0].At)
			assert.Equal(t, t1, e.runs[0].FireAt)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, newEnv[string](t, tc.opts))
		})
	}
}

// TestQueueNamespacedKeys: keys with and without a namespace, and keys of
// another type, are distinct.
func TestQueueNamespacedKeys(t *testing.T) {
	e := newEnv[types.NamespacedName](t)
	bare := types.NamespacedName{Name: "n"}
	inNS := types.NamespacedName{Namespace: "ns", Name: "n"}
	assert.Equal(t, "/n", bare.String())
	assert.True(t, e.q.Add(bare, struct{}{}, t0, t0.Add(time.Second)))
	assert.True(t, e.q.Add(inNS, struct{}{}, t0, t0.Add(time.Second)))
	assert.Equal(t, 2, e.q.Len())
	assert.True(t, e.q.Cancel(bare))
	e.step(time.Second)
	assert.Equal(t, []types.NamespacedName{inNS}, e.keys())

	// Upstream keys by the string form, where "/n" and "n" differ too.
	s := newEnv[string](t)
	assert.True(t, s.q.Add(bare.String(), struct{}{}, t0, t0.Add(time.Second)))
	assert.True(t, s.q.Add("n", struct{}{}, t0, t0.Add(time.Second)))
}

func TestQueueCancelPendingWaitingForWorker(t *testing.T) {
	e := newEnv[string](t, Options[string]{Workers: 1})
	release := e.gate("busy")
	e.q.Add("busy", struct{}{}, t0, t0)
	<-e.started
	e.q.Add("due", struct{}{}, t0, t0)
	it, _ := e.q.Get("due")
	assert.Equal(t, Pending, it.State, "due but waiting for the one worker")
	assert.True(t, e.q.Cancel("due"))
	release()
	e.idle()
	assert.Equal(t, []string{"busy"}, e.keys())
}

func TestQueueManyWorkers(t *testing.T) {
	// With as many workers as items, every due item runs at once, as
	// upstream's goroutine per item does.
	e := newEnv[string](t, Options[string]{Workers: 40})
	const n = 40
	var releases []func()
	for i := range n {
		k := strconv.Itoa(i)
		releases = append(releases, e.gate(k))
		e.q.Add(k, struct{}{}, t0, t0)
	}
	for range n {
		<-e.started // all n calls are running at the same time
	}
	for _, r := range releases {
		r()
	}
	e.idle()
	assert.Len(t, e.keys(), n)
}

// TestQueueBoundedWorkers: upstream starts a goroutine per due item without
// bound; the library runs at most Options.Workers calls at once.
func TestQueueBoundedWorkers(t *testing.T) {
	e := newEnv[string](t, Options[string]{Workers: 2})
	var releases []func()
	for i := range 5 {
		k := strconv.Itoa(i)
		releases = append(releases, e.gate(k))
		e.q.Add(k, struct{}{}, t0, t0)
	}
	<-e.started
	<-e.started
	assert.Len(t, e.keys(), 2, "two workers")
	for _, r := range releases {
		r()
	}
	e.idle()
	assert.Len(t, e.keys(), 5)
}

// TestQueueRetry: upstream never retries in the queue (its pod-deletion
// work tries five times 10 ms apart, then the eviction is dropped); Options.Retry
// adds durable retries on the queue's clock.
func TestQueueRetry(t *testing.T) {
	errBoom := errors.New("boom")
	t.Run("succeeds on the third attempt, backoff on the clock", func(t *testing.T) {
		e := newEnv[string](t, Options[string]{Retry: Retry{MaxAttempts: 5, Initial: time.Second, Max: time.Minute}})
		e.fail["k"] = errBoom
		e.q.Add("k", struct{}{}, t0, t0)
		e.idle()
		it, ok := e.q.Get("k")
		require.True(t, ok)
		assert.Equal(t, Item[string, struct{}]{Key: "k", CreatedAt: t0, FireAt: t0, State: Pending, Attempts: 1}, it)
		e.step(999 * time.Millisecond)
		assert.Equal(t, 1, e.count("k"))
		e.step(time.Millisecond)
		assert.Equal(t, 2, e.count("k"))
		delete(e.fail, "k")
		e.step(time.Second)
		assert.Equal(t, 2, e.count("k"), "second wait is 2 s")
		e.step(time.Second)
		assert.Equal(t, 3, e.count("k"))
		for _, r := range e.runs {
			assert.Equal(t, t0, r.FireAt, "every attempt sees the original fire time")
		}
		assert.Empty(t, e.errs)
		assert.Zero(t, e.q.Len())
	})
	t.Run("gives up after MaxAttempts and reports the last error", func(t *testing.T) {
		e := newEnv[string](t, Options[string]{Retry: Retry{MaxAttempts: 3, Initial: time.Second}})
		e.fail["k"] = errBoom
		e.q.Add("k", struct{}{}, t0, t0)
		for range 10 {
			e.step(10 * time.Second)
		}
		assert.Equal(t, 3, e.count("k"))
		require.Len(t, e.errs, 1)
		assert.ErrorIs(t, e.errs[0], errBoom)
	})
	t.Run("cancel during backoff stops retries", func(t *testing.T) {
		e := newEnv[string](t, Options[string]{Retry: Retry{MaxAttempts: -1}})
		e.fail["k"] = errBoom
		e.q.Add("k", struct{}{}, t0, t0)
		e.idle()
		assert.True(t, e.q.Cancel("k"))
		e.step(time.Hour)
		assert.Equal(t, 1, e.count("k"))
		assert.Empty(t, e.errs)
	})
	t.Run("cancel of the running call ends retries and reports", func(t *testing.T) {
		e := newEnv[string](t, Options[string]{Retry: Retry{MaxAttempts: -1}})
		e.fail["k"] = errBoom
		release := e.gate("k")
		e.q.Add("k", struct{}{}, t0, t0)
		<-e.started
		assert.False(t, e.q.Cancel("k"))
		release()
		e.step(time.Hour)
		assert.Equal(t, 1, e.count("k"))
		assert.Len(t, e.errs, 1)
	})
	t.Run("shutdown drops an item waiting to retry", func(t *testing.T) {
		e := newEnv[string](t, Options[string]{Retry: Retry{MaxAttempts: -1}})
		e.fail["k"] = errBoom
		e.q.Add("k", struct{}{}, t0, t0)
		e.idle()
		require.NoError(t, e.q.Shutdown(context.Background()))
		_, ok := e.q.Get("k")
		assert.False(t, ok, "dropped")
		assert.Zero(t, e.q.Len())
		e.step(time.Hour)
		assert.Equal(t, 1, e.count("k"))
		assert.Empty(t, e.errs, "a dropped retry is not reported")
	})
}

func TestRetryBackoff(t *testing.T) {
	tests := []struct {
		name string
		r    Retry
		n    int
		want time.Duration
	}{
		{"first", Retry{Initial: time.Second, Max: 5 * time.Second}, 1, time.Second},
		{"second doubles", Retry{Initial: time.Second, Max: 5 * time.Second}, 2, 2 * time.Second},
		{"third", Retry{Initial: time.Second, Max: 5 * time.Second}, 3, 4 * time.Second},
		{"capped", Retry{Initial: time.Second, Max: 5 * time.Second}, 4, 5 * time.Second},
		{"huge n saturates", Retry{Initial: time.Second, Max: 5 * time.Second}, 1 << 40, 5 * time.Second},
		{"defaults", Retry{}, 1, DefaultRetryInitial},
		{"default max", Retry{}, 100, DefaultRetryMax},
		{"initial above max", Retry{Initial: time.Hour, Max: time.Minute}, 1, time.Minute},
		{"max near overflow", Retry{Initial: time.Nanosecond, Max: time.Duration(1<<63 - 1)}, 200, time.Duration(1<<63 - 1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.r.Backoff(tc.n))
		})
	}
}

func TestQueueOptions(t *testing.T) {
	t.Run("nil work does nothing", func(t *testing.T) {
		clk := testclock.NewFakeClock(t0)
		q := New[int, struct{}](nil, Options[int]{Clock: clk})
		assert.True(t, q.Add(1, struct{}{}, t0, t0))
		require.NoError(t, q.Idle(context.Background()))
		assert.Zero(t, q.Len())
	})
	t.Run("context reaches the work", func(t *testing.T) {
		type ctxKey struct{}
		ctx := context.WithValue(context.Background(), ctxKey{}, "v")
		got := make(chan any, 1)
		q := New(func(ctx context.Context, _ Item[int, struct{}]) error {
			got <- ctx.Value(ctxKey{})
			return nil
		}, Options[int]{Context: ctx, Clock: testclock.NewFakeClock(t0)})
		q.Add(1, struct{}{}, t0, t0)
		assert.Equal(t, "v", <-got)
		require.NoError(t, q.Shutdown(context.Background()))
	})
	t.Run("idle honours its context", func(t *testing.T) {
		e := newEnv[string](t)
		release := e.gate("k")
		e.q.Add("k", struct{}{}, t0, t0)
		<-e.started
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		assert.ErrorIs(t, e.q.Idle(ctx), context.Canceled)
		release()
		e.idle()
	})
}

// TestQueueNoGoroutineWhenEmpty: the timer goroutine exits once nothing is
// pending, and workers exit once nothing is due.
func TestQueueNoGoroutineWhenEmpty(t *testing.T) {
	e := newEnv[string](t)
	base := runtime.NumGoroutine()
	e.q.Add("a", struct{}{}, t0, t0.Add(time.Second))
	e.q.Add("b", struct{}{}, t0, t0.Add(2*time.Second))
	e.q.Cancel("a")
	e.q.Cancel("b")
	e.step(time.Second)
	assert.Zero(t, e.clk.Waiters(), "timer stopped")
	waitGoroutines(t, base)
	e.q.Add("c", struct{}{}, t0, t0.Add(3*time.Second))
	e.step(3 * time.Second)
	waitGoroutines(t, base)
	assert.Equal(t, []string{"c"}, e.keys())
}

// waitGoroutines waits (yielding, never sleeping) until at most n goroutines
// exist: exiting goroutines need a moment to be counted out.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	for range 100_000 {
		if runtime.NumGoroutine() <= n {
			return
		}
		runtime.Gosched()
	}
	t.Fatalf("goroutines: %d, want ≤ %d", runtime.NumGoroutine(), n)
}

// TestQueueSynctest drives a Queue on the real clock inside a
// testing/synctest bubble, where sleeping advances a fake clock.
func TestQueueSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var got []string
		q := New(func(_ context.Context, it Item[string, struct{}]) error {
			k := it.Key
			mu.Lock()
			defer mu.Unlock()
			got = append(got, k)
			return nil
		}, Options[string]{})
		now := time.Now()
		q.Add("b", struct{}{}, now, now.Add(2*time.Second))
		q.Add("a", struct{}{}, now, now.Add(time.Second))
		q.Add("now", struct{}{}, now, now)
		synctest.Wait()
		mu.Lock()
		assert.Equal(t, []string{"now"}, got)
		mu.Unlock()
		time.Sleep(1500 * time.Millisecond)
		synctest.Wait()
		mu.Lock()
		assert.Equal(t, []string{"now", "a"}, got)
		mu.Unlock()
		time.Sleep(time.Second)
		synctest.Wait()
		mu.Lock()
		assert.Equal(t, []string{"now", "a", "b"}, got)
		mu.Unlock()
		require.NoError(t, q.Shutdown(context.Background()))
	})
}

// TestQueueCancelRunningAfterTimer: upstream's CancelWork reports true for
// an item its timer started that is still running, though nothing is
// cancelled; the library reports false.
func TestQueueCancelRunningAfterTimer(t *testing.T) {
	e := newEnv[string](t)
	release := e.gate("k")
	e.q.Add("k", struct{}{}, t0, t0.Add(time.Second))
	e.clk.Step(time.Second)
	<-e.started
	assert.False(t, e.q.Cancel("k"))
	_, ok := e.q.Get("k")
	assert.False(t, ok, "the key is released")
	release()
	e.idle()
	assert.Equal(t, 1, e.count("k"), "the running call was not interrupted")
}

// armCounter is a fake clock that counts how often a queue sets a timer
// (NewTimer or Reset).
type armCounter struct {
	*testclock.FakeClock
	arms atomic.Int32
}

func (c *armCounter) NewTimer(d time.Duration) clock.Timer {
	c.arms.Add(1)
	return countedTimer{c.FakeClock.NewTimer(d), &c.arms}
}

type countedTimer struct {
	clock.Timer
	arms *atomic.Int32
}

func (t countedTimer) Reset(d time.Duration) bool {
	t.arms.Add(1)
	return t.Timer.Reset(d)
}

// TestQueueCancelHeadKeepsTimer: cancelling the head leaves the timer alone
// when the new head is due at the same time, and re-arms it otherwise
// either way the next item runs on time.
func TestQueueCancelHeadKeepsTimer(t *testing.T) {
	clk := &armCounter{FakeClock: testclock.NewFakeClock(t0)}
	e := newEnv[string](t, Options[string]{Clock: clk})
	for _, k := range []string{"a", "b", "c"} {
		e.q.Add(k, struct{}{}, t0, t0.Add(time.Second))
	}
	e.q.Add("d", struct{}{}, t0, t0.Add(2*time.Second))
	require.EqualValues(t, 1, clk.arms.Load())

	assert.True(t, e.q.Cancel("a"))
	assert.True(t, e.q.Cancel("b"))
	assert.EqualValues(t, 1, clk.arms.Load(), "c is due when a and b were")
	assert.Equal(t, 1, clk.Waiters())

	clk.Step(time.Second)
	e.idle()
	assert.Equal(t, []string{"c"}, e.keys())

	e.q.Add("e", struct{}{}, t0, t0.Add(3*time.Second))
	arms := clk.arms.Load()
	assert.True(t, e.q.Cancel("d"))
	assert.Equal(t, arms+1, clk.arms.Load(), "e is due later than d: re-armed")
	clk.Step(time.Second)
	e.idle()
	assert.Equal(t, []string{"c"}, e.keys(), "nothing at d's time")
	clk.Step(time.Second)
	e.idle()
	assert.Equal(t, []string{"c", "e"}, e.keys())
}
