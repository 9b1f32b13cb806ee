package timedqueue

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	testclock "k8s.io/utils/clock/testing"
)

// valueEnv is a one-worker queue on a fake clock whose values are strings;
// its work records "key=value" for every call.
type valueEnv struct {
	clk  *testclock.FakeClock
	q    *Queue[string, string]
	mu   sync.Mutex
	runs []string
}

func newValueEnv(t *testing.T) *valueEnv {
	e := &valueEnv{clk: testclock.NewFakeClock(t0)}
	e.q = New(func(_ context.Context, it Item[string, string]) error {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.runs = append(e.runs, it.Key+"="+it.Value)
		return nil
	}, Options[string]{Clock: e.clk, Workers: 1})
	t.Cleanup(func() { require.NoError(t, e.q.Shutdown(context.Background())) })
	return e
}

func (e *valueEnv) step(t *testing.T, d time.Duration) []string {
	e.clk.Step(d)
	require.NoError(t, e.q.Idle(context.Background()))
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.runs...)
}

func TestQueueValues(t *testing.T) {
	t.Run("get and work see the value stored", func(t *testing.T) {
		e := newValueEnv(t)
		require.True(t, e.q.Add("k", "v1", t0, t0.Add(time.Second)))
		it, ok := e.q.Get("k")
		require.True(t, ok)
		assert.Equal(t, Item[string, string]{Key: "k", Value: "v1", CreatedAt: t0, FireAt: t0.Add(time.Second), State: Pending}, it)
		assert.Equal(t, []string{"k=v1"}, e.step(t, time.Second))
	})
	t.Run("the first add's value wins", func(t *testing.T) {
		e := newValueEnv(t)
		require.True(t, e.q.Add("k", "first", t0, t0.Add(time.Second)))
		require.False(t, e.q.Add("k", "second", t0, t0))
		assert.Equal(t, []string{"k=first"}, e.step(t, time.Second))
	})
	t.Run("a held re-add carries its own value", func(t *testing.T) {
		e := newValueEnv(t)
		release := make(chan struct{})
		started := make(chan struct{})
		q := New(func(_ context.Context, it Item[string, string]) error {
			if it.Value == "old" {
				close(started)
				<-release
			}
			e.mu.Lock()
			defer e.mu.Unlock()
			e.runs = append(e.runs, it.Key+"="+it.Value)
			return nil
		}, Options[string]{Clock: e.clk, Workers: 2})
		defer func() { require.NoError(t, q.Shutdown(context.Background())) }()
		q.Add("k", "old", t0, t0)
		<-started
		require.True(t, q.Add("k", "new", t0, t0), "held behind the running call")
		it, _ := q.Get("k")
		assert.Equal(t, "new", it.Value)
		assert.Equal(t, Pending, it.State)
		close(release)
		require.NoError(t, q.Idle(context.Background()))
		e.mu.Lock()
		defer e.mu.Unlock()
		assert.Equal(t, []string{"k=old", "k=new"}, e.runs)
	})
}

func TestQueueBatch(t *testing.T) {
	t.Run("operations act as the queue's, and due items start once the batch ends", func(t *testing.T) {
		e := newValueEnv(t)
		e.q.Add("pending", "p", t0, t0.Add(time.Minute))
		e.q.Add("cancelled", "c", t0, t0.Add(time.Minute))
		var got []bool
		e.q.Batch(func(b Batch[string, string]) {
			_, ok := b.Entry("pending").Get()
			got = append(got, ok)
			got = append(got, b.Entry("pending").Add("again", t0, t0))
			got = append(got, b.Entry("due").Add("d", t0, t0))
			got = append(got, b.Entry("cancelled").Cancel())
			e.mu.Lock()
			assert.Empty(t, e.runs, "nothing starts inside the batch")
			e.mu.Unlock()
		})
		assert.Equal(t, []bool{true, false, true, true}, got)
		assert.Equal(t, []string{"due=d"}, e.step(t, 0))
		assert.Equal(t, []string{"due=d", "pending=p"}, e.step(t, time.Minute))
		assert.Equal(t, 0, e.q.Len())
	})
	t.Run("a cancel of the head inside a batch re-arms the timer", func(t *testing.T) {
		e := newValueEnv(t)
		e.q.Add("a", "", t0, t0.Add(time.Second))
		e.q.Add("b", "", t0, t0.Add(2*time.Second))
		e.q.Batch(func(b Batch[string, string]) { b.Entry("a").Cancel() })
		assert.Empty(t, e.step(t, time.Second))
		assert.Equal(t, []string{"b="}, e.step(t, time.Second))
	})
	t.Run("after shutdown a batch adds nothing", func(t *testing.T) {
		e := newValueEnv(t)
		require.NoError(t, e.q.Shutdown(context.Background()))
		e.q.Batch(func(b Batch[string, string]) {
			assert.False(t, b.Entry("k").Add("", t0, t0))
		})
		assert.Equal(t, 0, e.q.Len())
	})
	t.Run("a panic in f leaves the queue unlocked", func(t *testing.T) {
		e := newValueEnv(t)
		assert.Panics(t, func() {
			e.q.Batch(func(b Batch[string, string]) {
				b.Entry("k").Add("v", t0, t0)
				panic("boom")
			})
		})
		assert.Equal(t, []string{"k=v"}, e.step(t, 0), "what the batch added before the panic is dispatched")
	})
}
