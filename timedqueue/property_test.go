package timedqueue

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	testclock "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"
)

// model is the reference for the heap and Queue: a slice of pending items kept
// sorted by (fire time, push order).
type model struct {
	items []mItem
	seq   int
}

type mItem struct {
	key             int
	created, fireAt time.Time
	seq             int
}

func (m *model) find(key int) int {
	return slices.IndexFunc(m.items, func(it mItem) bool { return it.key == key })
}

func (m *model) push(key int, created, fireAt time.Time) {
	m.seq++
	m.items = append(m.items, mItem{key, created, fireAt, m.seq})
	slices.SortFunc(m.items, func(a, b mItem) int {
		return cmp.Or(a.fireAt.Compare(b.fireAt), cmp.Compare(a.seq, b.seq))
	})
}

func (m *model) remove(key int) bool {
	i := m.find(key)
	if i < 0 {
		return false
	}
	m.items = slices.Delete(m.items, i, i+1)
	return true
}

// popDue removes and returns the due items in order.
func (m *model) popDue(now time.Time) []mItem {
	n := 0
	for n < len(m.items) && !m.items[n].fireAt.After(now) {
		n++
	}
	due := slices.Clone(m.items[:n])
	m.items = slices.Delete(m.items, 0, n)
	return due
}

// Times are drawn on a 100 ms grid so that equal fire times are common.
func drawTime(t *rapid.T, base time.Time, label string) time.Time {
	return base.Add(time.Duration(rapid.IntRange(-20, 100).Draw(t, label)) * 100 * time.Millisecond)
}

// TestHeapMatchesModel: the synchronous heap agrees with a sorted slice
// after every Push, Update, Remove and PopDue.
func TestHeapMatchesModel(t *testing.T) {
	rapid.Check(t, heapMachine)
}

// FuzzHeap drives the same state machine from fuzz input.
func FuzzHeap(f *testing.F) {
	for seed := range 4 {
		b := make([]byte, 16<<10)
		x := uint32(seed*7919 + 1)
		for i := range b {
			x = x*1664525 + 1013904223 // a fixed LCG: seeds must be stable
			b[i] = byte(x >> 24)
		}
		f.Add(b)
	}
	f.Fuzz(rapid.MakeFuzz(heapMachine))
}

func heapMachine(t *rapid.T) {
	var h heap[int, struct{}]
	var m model
	now := t0
	key := rapid.IntRange(0, 15)
	t.Repeat(map[string]func(*rapid.T){
		"push": func(t *rapid.T) {
			k := key.Draw(t, "key")
			c, f := drawTime(t, now, "created"), drawTime(t, now, "fire")
			want := m.find(k) < 0
			if got := h.Push(k, struct{}{}, c, f); got != want {
				t.Fatalf("Push(%d) = %v, want %v", k, got, want)
			}
			if want {
				m.push(k, c, f)
			}
		},
		"update": func(t *rapid.T) {
			k := key.Draw(t, "key")
			c, f := drawTime(t, now, "created"), drawTime(t, now, "fire")
			want := m.remove(k)
			if got := h.Update(k, struct{}{}, c, f); got != want {
				t.Fatalf("Update(%d) = %v, want %v", k, got, want)
			}
			if want {
				m.push(k, c, f)
			}
		},
		"remove": func(t *rapid.T) {
			k := key.Draw(t, "key")
			want := m.remove(k)
			if _, got := h.Remove(k); got != want {
				t.Fatalf("Remove(%d) = %v, want %v", k, got, want)
			}
		},
		"compact": func(*rapid.T) {
			h.compact() // as a large heap that stayed small would
		},
		"popDue": func(t *rapid.T) {
			now = now.Add(time.Duration(rapid.IntRange(0, 30).Draw(t, "advance")) * 100 * time.Millisecond)
			var got []int
			for {
				it, ok := h.PopDue(now)
				if !ok {
					break
				}
				got = append(got, it.Key)
			}
			var want []int
			for _, it := range m.popDue(now) {
				want = append(want, it.key)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("PopDue(%v) = %v, want %v", now.Sub(t0), got, want)
			}
		},
		"": func(t *rapid.T) {
			if h.Len() != len(m.items) {
				t.Fatalf("Len = %d, want %d", h.Len(), len(m.items))
			}
			for k := range 16 {
				it, ok := h.Get(k)
				i := m.find(k)
				if ok != (i >= 0) {
					t.Fatalf("Get(%d) ok = %v", k, ok)
				}
				if ok && (it.FireAt != m.items[i].fireAt || it.CreatedAt != m.items[i].created || it.State != Pending) {
					t.Fatalf("Get(%d) = %+v, want %+v", k, it, m.items[i])
				}
			}
			at, ok := h.NextAt()
			if ok != (len(m.items) > 0) || ok && !at.Equal(m.items[0].fireAt) {
				t.Fatalf("NextAt = %v, %v", at, ok)
			}
			checkHeapInvariants(t, &h)
		},
	})
}

// checkHeapInvariants verifies the heap order, the positions recorded in
// the slab, and the key index.
func checkHeapInvariants(t *rapid.T, h *heap[int, struct{}]) {
	for i, e := range h.elems {
		if i > 0 && e.less(h.elems[(i-1)/arity]) {
			t.Fatalf("heap order broken at %d", i)
		}
		if h.at(e.slot).pos != int32(i) {
			t.Fatalf("slot %d records pos %d, is at %d", e.slot, h.at(e.slot).pos, i)
		}
		if _, s, ok := h.find(h.at(e.slot).key, h.tag(h.at(e.slot).key)); !ok || s != e.slot {
			t.Fatalf("index of key %d: %d, want %d", h.at(e.slot).key, s, e.slot)
		}
	}
	if h.idx.n != len(h.elems)+h.running {
		t.Fatalf("index holds %d keys, heap %d + running %d", h.idx.n, len(h.elems), h.running)
	}
	occupied := 0
	for b, e := range h.idx.buckets {
		if e == 0 {
			continue
		}
		occupied++
		s := int32(uint32(e)) - 1
		got := uint32(e >> 32)
		if got != h.tag(h.at(s).key) {
			t.Fatalf("bucket %d: tag %x, key %d hashes to %x", b, got, h.at(s).key, h.tag(h.at(s).key))
		}
		if fb, _, ok := h.find(h.at(s).key, got); !ok || fb != b {
			t.Fatalf("bucket %d (slot %d) is not found by its key: %d, %v", b, s, fb, ok)
		}
	}
	if occupied != h.idx.n {
		t.Fatalf("%d buckets occupied, index counts %d", occupied, h.idx.n)
	}
	if len(h.free)+len(h.elems)+h.running != int(h.nslots) {
		t.Fatalf("%d slots: %d free, %d pending, %d running", h.nslots, len(h.free), len(h.elems), h.running)
	}
	for _, s := range h.free {
		if h.at(s).pos != posFree {
			t.Fatalf("free slot %d has pos %d", s, h.at(s).pos)
		}
	}
}

// TestQueueMatchesModel is the queue's state machine: random Add, Cancel
// and clock steps on a fake clock; after every step exactly the due,
// uncancelled items have run, once each, in (fire time, insertion) order and
// at the first clock reading not before their fire time.
func TestQueueMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		clk := testclock.NewFakeClock(t0)
		var mu sync.Mutex
		var got []ran[int]
		q := New(func(_ context.Context, it Item[int, struct{}]) error {
			k, fireAt := it.Key, it.FireAt
			mu.Lock()
			defer mu.Unlock()
			got = append(got, ran[int]{Key: k, FireAt: fireAt, At: clk.Now()})
			return nil
		}, Options[int]{Clock: clk, Workers: 1})
		defer func() { _ = q.Shutdown(context.Background()) }()

		var m model
		var want []ran[int]
		key := rapid.IntRange(0, 9)
		settle := func(t *rapid.T) {
			if err := q.Idle(context.Background()); err != nil {
				t.Fatal(err)
			}
			now := clk.Now()
			for _, it := range m.popDue(now) {
				want = append(want, ran[int]{Key: it.key, FireAt: it.fireAt, At: now})
			}
		}
		t.Repeat(map[string]func(*rapid.T){
			"add": func(t *rapid.T) {
				k := key.Draw(t, "key")
				c, f := drawTime(t, clk.Now(), "created"), drawTime(t, clk.Now(), "fire")
				wantOK := m.find(k) < 0
				if ok := q.Add(k, struct{}{}, c, f); ok != wantOK {
					t.Fatalf("Add(%d) = %v, want %v", k, ok, wantOK)
				}
				if wantOK {
					m.push(k, c, f)
				}
				settle(t)
			},
			"cancel": func(t *rapid.T) {
				k := key.Draw(t, "key")
				wantOK := m.remove(k)
				if ok := q.Cancel(k); ok != wantOK {
					t.Fatalf("Cancel(%d) = %v, want %v", k, ok, wantOK)
				}
				settle(t)
			},
			"step": func(t *rapid.T) {
				clk.Step(time.Duration(rapid.IntRange(0, 30).Draw(t, "advance")) * 100 * time.Millisecond)
				settle(t)
			},
			"compact": func(*rapid.T) {
				q.mu.Lock()
				q.h.compact() // as a large queue that stayed small would
				q.mu.Unlock()
			},
			"": func(t *rapid.T) {
				mu.Lock()
				defer mu.Unlock()
				if !slices.Equal(got, want) {
					t.Fatalf("runs\n got %v\nwant %v", got, want)
				}
				if q.Len() != len(m.items) {
					t.Fatalf("Len = %d, want %d", q.Len(), len(m.items))
				}
				for k := range 10 {
					it, ok := q.Get(k)
					i := m.find(k)
					if ok != (i >= 0) || ok && (!it.FireAt.Equal(m.items[i].fireAt) || !it.CreatedAt.Equal(m.items[i].created) || it.State != Pending) {
						t.Fatalf("Get(%d) = %+v, %v", k, it, ok)
					}
				}
				if n := clk.Waiters(); n > 1 {
					t.Fatalf("%d clock waiters, want at most one timer", n)
				}
			},
		})
	})
}

// TestQueueWorkersProperty: with any bound on the workers, every due item
// runs exactly once, never before its fire time, and never more calls at
// once than the bound.
func TestQueueWorkersProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		workers := rapid.IntRange(1, 4).Draw(t, "workers")
		clk := testclock.NewFakeClock(t0)
		var mu sync.Mutex
		active, peak, early := 0, 0, 0
		count := map[int]int{}
		q := New(func(_ context.Context, it Item[int, struct{}]) error {
			k, fireAt := it.Key, it.FireAt
			mu.Lock()
			if clk.Now().Before(fireAt) {
				early++
			}
			count[k]++
			active++
			peak = max(peak, active)
			mu.Unlock()
			runtime.Gosched()
			mu.Lock()
			active--
			mu.Unlock()
			return nil
		}, Options[int]{Clock: clk, Workers: workers})
		defer func() { _ = q.Shutdown(context.Background()) }()
		n := rapid.IntRange(0, 60).Draw(t, "n")
		for k := range n {
			q.Add(k, struct{}{}, t0, drawTime(t, t0, "fire"))
		}
		for range 12 {
			clk.Step(time.Second)
		}
		if err := q.Idle(context.Background()); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		for k := range n {
			if count[k] != 1 {
				t.Fatalf("key %d ran %d times", k, count[k])
			}
		}
		if early > 0 {
			t.Fatalf("%d calls before their fire time", early)
		}
		if peak > workers {
			t.Fatalf("%d calls at once, bound %d", peak, workers)
		}
	})
}

// TestRateLimitedMatchesModel: with an always-accepting bucket, Try hands
// out exactly the due values in (process time, insertion) order, retries
// at now+wait+1ns and keeps tombstones until Remove or Clear.
func TestRateLimitedMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		clk := testclock.NewFakeClock(t0)
		rs := NewRateLimited[int](always)
		var m model
		processed := map[int]bool{}
		key := rapid.IntRange(0, 7)
		t.Repeat(map[string]func(*rapid.T){
			"add": func(t *rapid.T) {
				k := key.Draw(t, "key")
				wantOK := m.find(k) < 0 && !processed[k]
				if ok := rs.Add(clk.Now(), k, nil); ok != wantOK {
					t.Fatalf("Add(%d) = %v, want %v", k, ok, wantOK)
				}
				if wantOK {
					m.push(k, clk.Now(), clk.Now())
				}
			},
			"remove": func(t *rapid.T) {
				k := key.Draw(t, "key")
				wantOK := m.remove(k) || processed[k]
				delete(processed, k)
				if ok := rs.Remove(k); ok != wantOK {
					t.Fatalf("Remove(%d) = %v, want %v", k, ok, wantOK)
				}
			},
			"clear": func(t *rapid.T) {
				rs.Clear()
				m.items = nil
				clear(processed)
			},
			"step": func(t *rapid.T) {
				clk.Step(time.Duration(rapid.IntRange(0, 20).Draw(t, "advance")) * 100 * time.Millisecond)
			},
			"try": func(t *rapid.T) {
				fail := rapid.MapOf(key, rapid.IntRange(0, 20)).Draw(t, "fail") // key → wait in 100 ms
				var got []int
				rs.Try(clk.Now(), func(v TimedValue[int]) (bool, time.Duration) {
					got = append(got, v.Value)
					if w, ok := fail[v.Value]; ok {
						return false, time.Duration(w) * 100 * time.Millisecond
					}
					return true, 0
				})
				now := clk.Now()
				var want []int
				for len(m.items) > 0 && !m.items[0].fireAt.After(now) {
					it := m.items[0]
					want = append(want, it.key)
					m.items = m.items[1:]
					if w, ok := fail[it.key]; ok {
						m.push(it.key, it.created, now.Add(time.Duration(w)*100*time.Millisecond+1))
					} else {
						processed[it.key] = true
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("Try handed out %v, want %v", got, want)
				}
			},
			"": func(t *rapid.T) {
				vs := rs.Values()
				if len(vs) != len(m.items) || rs.Len() != len(m.items) {
					t.Fatalf("queued %d, want %d", len(vs), len(m.items))
				}
				for i, v := range vs {
					it := m.items[i]
					if v.Value != it.key || !v.AddedAt.Equal(it.created) || !v.ProcessAt.Equal(it.fireAt) {
						t.Fatalf("value %d = %+v, want %+v", i, v, it)
					}
				}
				for k := range 8 {
					if rs.Has(k) != (processed[k] || m.find(k) >= 0) {
						t.Fatalf("Has(%d) wrong", k)
					}
				}
			},
		})
	})
}

// TestRateLimitedBucketLaw: however Try is polled, the number of values
// handed out by time T never exceeds 1 + qps·T (burst 1), and no value is
// handed out before its process time.
func TestRateLimitedBucketLaw(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		qps := rapid.SampledFrom([]float32{0.1, 0.5, 1, 2, 10}).Draw(t, "qps")
		r, clk := newRL(qps)
		for k := range 20 {
			r.Add(clk.Now(), string(rune('a'+k)), nil)
		}
		n := 0
		for range rapid.IntRange(1, 50).Draw(t, "polls") {
			clk.Step(time.Duration(rapid.IntRange(0, 3000).Draw(t, "gap")) * time.Millisecond)
			n += r.Try(clk.Now(), func(v TimedValue[string]) (bool, time.Duration) {
				if clk.Now().Before(v.ProcessAt) {
					t.Fatalf("%s handed out before its time", v.Value)
				}
				return rapid.Bool().Draw(t, "done"), time.Duration(rapid.IntRange(0, 2000).Draw(t, "wait")) * time.Millisecond
			})
			if limit := 1 + float64(qps)*clk.Since(t0).Seconds(); float64(n) > limit+1e-6 {
				t.Fatalf("%d values by %v at %v qps", n, clk.Since(t0), qps)
			}
		}
	})
}

// TestRateLimitedNextTokenIsExact: after any history of draws, idle time
// and rate changes, a Try at NextToken(now) draws a token and a Try one
// nanosecond earlier (not before now) does not, whatever the rate.
func TestRateLimitedNextTokenIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		qps := rapid.OneOf(
			rapid.SampledFrom([]float32{0.01, 0.1, 0.3, 1, 3, 10, 1000}),
			rapid.Float32Range(0.001, 100),
		)
		r := NewRateLimited[int](qps.Draw(t, "qps"))
		for k := range 64 {
			r.Add(t0, k, nil)
		}
		keep := func(TimedValue[int]) (bool, time.Duration) { return true, 0 } // the next value is due too
		now := t0
		for range rapid.IntRange(1, 20).Draw(t, "steps") {
			now = now.Add(time.Duration(rapid.Int64Range(0, 20e9).Draw(t, "idle")))
			if rapid.IntRange(0, 4).Draw(t, "change") == 0 {
				r.SetRate(now, qps.Draw(t, "new qps"))
			}
			at, ok := r.NextToken(now)
			if !ok {
				t.Fatalf("no next token at %v qps", r.QPS())
			}
			if at.Before(now) {
				t.Fatalf("NextToken(%v) = %v, before now", now, at)
			}
			if at.After(now) && r.Try(at.Add(-1), keep) != 0 {
				t.Fatalf("at %v qps: a token 1 ns before NextToken %v", r.QPS(), at.Sub(now))
			}
			if n := r.Try(at, keep); n != 1 {
				t.Fatalf("at %v qps: Try at NextToken (%v after now) handed out %d values, want 1", r.QPS(), at.Sub(now), n)
			}
			now = at
		}
	})
}

// heldCall is one work call of TestQueueHeldMatchesModel: it blocks until
// its gate is closed.
type heldCall struct {
	key    int
	fireAt time.Time
	gate   chan struct{}
}

// TestQueueHeldMatchesModel is the state machine of one key per call: work
// calls block until the test lets them return, so adds and
// cancels meet running calls. The model: a key has at most one pending
// item and at most one running call; a pending item starts once it is due
// and its key has no running call; Add succeeds unless an item is pending.
// So a held re-add runs exactly once, after the running call, and never
// beside it.
func TestQueueHeldMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		clk := testclock.NewFakeClock(t0)
		started := make(chan heldCall, 16)
		finished := make(chan int, 16)
		q := New(func(ctx context.Context, it Item[int, struct{}]) error {
			k, fireAt := it.Key, it.FireAt
			g := make(chan struct{})
			started <- heldCall{k, fireAt, g}
			select {
			case <-g:
			case <-ctx.Done(): // Shutdown
			}
			finished <- k
			return nil
		}, Options[int]{Clock: clk, Workers: 1 << 10}) // more than the keys: no call waits for a worker

		type keyState struct {
			pending  *mItem
			running  *heldCall // the call in progress
			released bool      // the running call no longer owns the key
		}
		const keys = 4
		var st [keys]keyState
		seq := 0
		receive := func(t *rapid.T) heldCall {
			select {
			case c := <-started:
				return c
			case <-time.After(10 * time.Second): // a bound, not a timing assertion
				t.Fatal("an expected call did not start")
				return heldCall{}
			}
		}
		// settle starts, in the model, every due pending item whose key is
		// free, and checks that the queue started the same calls.
		settle := func(t *rapid.T) {
			now := clk.Now()
			want := map[int]time.Time{}
			for k := range st {
				s := &st[k]
				if s.pending != nil && s.running == nil && !s.pending.fireAt.After(now) {
					want[k] = s.pending.fireAt
				}
			}
			for n := len(want); n > 0; n-- {
				c := receive(t)
				f, ok := want[c.key]
				if !ok || !f.Equal(c.fireAt) {
					t.Fatalf("started %d (fire %v), want one of %v", c.key, c.fireAt.Sub(t0), want)
				}
				delete(want, c.key)
				st[c.key].pending, st[c.key].running, st[c.key].released = nil, &c, false
			}
		}
		defer func() {
			// Shutdown drops what is pending and cancels the context of the
			// calls still blocked, which then return.
			if err := q.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n := q.Len(); n != 0 {
				t.Fatalf("Len after Shutdown = %d", n)
			}
		}()
		key := rapid.IntRange(0, keys-1)
		t.Repeat(map[string]func(*rapid.T){
			"add": func(t *rapid.T) {
				k := key.Draw(t, "key")
				f := drawTime(t, clk.Now(), "fire")
				s := &st[k]
				wantOK := s.pending == nil
				if ok := q.Add(k, struct{}{}, clk.Now(), f); ok != wantOK {
					t.Fatalf("Add(%d) = %v, want %v", k, ok, wantOK)
				}
				if wantOK {
					seq++
					s.pending = &mItem{key: k, created: clk.Now(), fireAt: f, seq: seq}
					s.released = s.running != nil
				}
				settle(t)
			},
			"cancel": func(t *rapid.T) {
				k := key.Draw(t, "key")
				s := &st[k]
				wantOK := s.pending != nil
				if ok := q.Cancel(k); ok != wantOK {
					t.Fatalf("Cancel(%d) = %v, want %v", k, ok, wantOK)
				}
				s.pending = nil
				s.released = s.running != nil
				settle(t)
			},
			"return": func(t *rapid.T) {
				k := key.Draw(t, "key")
				s := &st[k]
				if s.running == nil {
					t.Skip("no call runs for the key")
				}
				close(s.running.gate)
				if got := <-finished; got != k {
					t.Fatalf("call of %d returned, want %d", got, k)
				}
				s.running, s.released = nil, false
				// The call has returned; wait until the queue has seen it:
				// its running calls are the model's, plus the held item
				// that may have started at once in its place.
				want := 0
				for i := range st {
					if st[i].running != nil {
						want++
					}
				}
				if s.pending != nil && !s.pending.fireAt.After(clk.Now()) {
					want++
				}
				for i := 0; ; i++ {
					q.mu.Lock()
					n := q.h.running + len(q.h.busy)
					q.mu.Unlock()
					if n == want {
						break
					}
					if i == 1_000_000 {
						t.Fatalf("%d calls run, want %d", n, want)
					}
					runtime.Gosched()
				}
				settle(t)
			},
			"step": func(t *rapid.T) {
				clk.Step(time.Duration(rapid.IntRange(0, 30).Draw(t, "advance")) * 100 * time.Millisecond)
				settle(t)
			},
			"": func(t *rapid.T) {
				n := 0
				for k := range st {
					s := &st[k]
					it, ok := q.Get(k)
					switch {
					case s.pending != nil:
						n++
						if !ok || it.State != Pending || !it.FireAt.Equal(s.pending.fireAt) {
							t.Fatalf("Get(%d) = %+v, %v; want pending at %v", k, it, ok, s.pending.fireAt.Sub(t0))
						}
					case s.running != nil && !s.released:
						n++
						if !ok || it.State != Running || !it.FireAt.Equal(s.running.fireAt) {
							t.Fatalf("Get(%d) = %+v, %v; want running", k, it, ok)
						}
					default:
						if ok {
							t.Fatalf("Get(%d) = %+v, want absent", k, it)
						}
					}
				}
				if q.Len() != n {
					t.Fatalf("Len = %d, want %d", q.Len(), n)
				}
				select {
				case c := <-started:
					t.Fatalf("unexpected call of %d", c.key)
				default:
				}
			},
		})
	})
}
