package timedqueue

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	testclock "k8s.io/utils/clock/testing"
)

// TestQueueStress: 8 goroutines share 100,000 random Add, Cancel,
// reschedule (Cancel then Add), Get and clock-step operations (run it with -race). Every fire time handed
// to the queue is unique, so each work call names the exact item it ran.
// Afterwards nothing ran twice, nothing ran early, nothing cancelled ran,
// and every item ran unless it was cancelled; no two calls for
// one key ever overlapped, and after Shutdown nothing is pending and none of
// the queue's goroutines is left.
func TestQueueStress(t *testing.T) {
	const goroutines, keys = 8, 256
	ops := 100_000
	if testing.Short() {
		ops = 10_000
	}
	clk := testclock.NewFakeClock(t0)
	var runMu sync.Mutex
	runs := map[int64]int{} // fire time (Unix ns) → calls
	var early, overlaps atomic.Int64
	var inFlight [keys]atomic.Int32
	q := New(func(_ context.Context, it Item[int, struct{}]) error {
		k, fireAt := it.Key, it.FireAt
		if inFlight[k].Add(1) > 1 {
			overlaps.Add(1)
		}
		defer inFlight[k].Add(-1)
		if clk.Now().Before(fireAt) {
			early.Add(1)
		}
		runMu.Lock()
		runs[fireAt.UnixNano()]++
		runMu.Unlock()
		runtime.Gosched() // let a re-add of the key meet the running call
		return nil
	}, Options[int]{Clock: clk, Workers: 16})

	// Operations on one key are serialised by its lock, so the bookkeeping
	// knows which item an operation met; the queue itself still sees 8
	// concurrent callers plus its own workers.
	type book struct {
		mu                sync.Mutex
		issued, cancelled []int64
	}
	books := make([]book, keys)
	var unique atomic.Int64
	fireAt := func(r *rand.Rand) time.Time {
		// Whole milliseconds from the fake clock plus a unique nanosecond
		// count below one millisecond.
		return clk.Now().Add(time.Duration(r.IntN(2000))*time.Millisecond + time.Duration(unique.Add(1)))
	}

	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 2026))
			for range ops / goroutines {
				k := r.IntN(keys)
				b := &books[k]
				switch p := r.IntN(100); {
				case p < 40:
					b.mu.Lock()
					f := fireAt(r)
					if q.Add(k, struct{}{}, clk.Now(), f) {
						b.issued = append(b.issued, f.UnixNano())
					}
					b.mu.Unlock()
				case p < 60:
					b.mu.Lock()
					it, found := q.Get(k)
					if q.Cancel(k) {
						if !found || it.State != Pending {
							t.Errorf("Cancel(%d) true, but Get saw %+v %v", k, it, found)
						}
						b.cancelled = append(b.cancelled, it.FireAt.UnixNano())
					}
					b.mu.Unlock()
				case p < 80:
					b.mu.Lock()
					// Rescheduled as a caller does: Cancel, then Add.
					it, _ := q.Get(k)
					if q.Cancel(k) {
						b.cancelled = append(b.cancelled, it.FireAt.UnixNano())
					}
					f := fireAt(r)
					if q.Add(k, struct{}{}, clk.Now(), f) {
						b.issued = append(b.issued, f.UnixNano())
					}
					b.mu.Unlock()
				case p < 94:
					clk.Step(time.Duration(r.IntN(50)) * time.Millisecond)
				case p < 95:
					// As a large queue that stayed small would, racing the
					// workers (it must wait for running calls to finish).
					q.mu.Lock()
					q.h.compact()
					q.mu.Unlock()
				default:
					q.Get(k)
					q.Len()
				}
			}
		})
	}
	wg.Wait()
	clk.Step(time.Hour)
	require.NoError(t, q.Idle(context.Background()))
	assert.Zero(t, q.Len(), "everything due has run")
	require.NoError(t, q.Shutdown(context.Background()))
	q.mu.Lock()
	assert.Zero(t, q.h.Len(), "nothing pending survives Shutdown")
	assert.False(t, q.loop, "the timer goroutine has exited")
	assert.Zero(t, q.active, "no worker is left")
	q.mu.Unlock()

	assert.Zero(t, overlaps.Load(), "two calls for one key at once")
	assert.Zero(t, early.Load(), "calls before their fire time")
	issued := map[int64]bool{}
	for i := range books {
		b := &books[i]
		for _, f := range b.issued {
			issued[f] = true
		}
		for _, f := range b.cancelled {
			assert.Zero(t, runs[f], "a cancelled item ran")
		}
		accounted := map[int64]bool{}
		for _, f := range b.cancelled {
			accounted[f] = true
		}
		for _, f := range b.issued {
			if runs[f] == 0 && !accounted[f] {
				t.Errorf("key %d: item firing at %v was lost", i, time.Unix(0, f).Sub(t0))
			}
		}
	}
	total := 0
	for f, n := range runs {
		total += n
		assert.True(t, issued[f], "a call for an item never added")
		assert.LessOrEqual(t, n, 1, "an item ran twice")
	}
	assert.Positive(t, total)
	t.Logf("%d operations, %d items, %d calls", ops, len(issued), total)
}
