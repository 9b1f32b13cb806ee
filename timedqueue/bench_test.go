package timedqueue

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	testclock "k8s.io/utils/clock/testing"
)

// perItemTimers is the baseline: upstream's design (not its code), a map of
// keys to per-item runtime timers, each firing its own goroutine.
type perItemTimers struct {
	mu      sync.Mutex
	workers map[string]*timerWorker
	wg      sync.WaitGroup
	work    func(ctx context.Context, key string, fireAt time.Time) error
}

type timerWorker struct {
	createdAt, fireAt time.Time
	timer             *time.Timer
	cancelled         atomic.Bool
}

func newPerItemTimers(work func(context.Context, string, time.Time) error) *perItemTimers {
	return &perItemTimers{workers: map[string]*timerWorker{}, work: work}
}

func (p *perItemTimers) Add(key string, _ struct{}, createdAt, fireAt time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.workers[key]; ok {
		return false
	}
	w := &timerWorker{createdAt: createdAt, fireAt: fireAt}
	fire := func() {
		p.wg.Go(func() {
			if w.cancelled.Load() {
				return
			}
			_ = p.work(context.Background(), key, fireAt)
			p.mu.Lock()
			delete(p.workers, key)
			p.mu.Unlock()
		})
	}
	d := fireAt.Sub(createdAt)
	if d <= 0 {
		fire()
		p.workers[key] = nil
		return true
	}
	w.timer = time.AfterFunc(d, fire)
	p.workers[key] = w
	return true
}

func (p *perItemTimers) Cancel(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	w, ok := p.workers[key]
	delete(p.workers, key)
	if !ok || w == nil {
		return false
	}
	w.cancelled.Store(true)
	w.timer.Stop()
	return true
}

func (p *perItemTimers) wait() { p.wg.Wait() }

// scheduler is what the benchmarks drive: ours or the baseline.
type scheduler interface {
	Add(key string, value struct{}, createdAt, fireAt time.Time) bool
	Cancel(key string) bool
}

var benchSizes = []struct {
	name string
	n    int
}{{"pending=1k", 1_000}, {"pending=100k", 100_000}, {"pending=1M", 1_000_000}}

func benchKeys(prefix string, n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = prefix + "/pod-" + strconv.Itoa(i)
	}
	return keys
}

// impl makes a fresh scheduler; wait returns once every due item has run,
// and stop releases the scheduler.
type impl struct {
	name string
	make func() (s scheduler, wait, stop func())
}

func impls() []impl {
	noop := func(context.Context, string, time.Time) error { return nil }
	return []impl{
		{"heap", func() (scheduler, func(), func()) {
			q := New(func(context.Context, Item[string, struct{}]) error { return nil }, Options[string]{})
			return q, func() { _ = q.Idle(context.Background()) }, func() { _ = q.Shutdown(context.Background()) }
		}},
		{"per-item-timers", func() (scheduler, func(), func()) {
			p := newPerItemTimers(noop)
			return p, p.wait, func() {}
		}},
	}
}

// runImpls runs f as the sub-benchmark "impl/pending=n" for every
// implementation and size.
func runImpls(b *testing.B, f func(b *testing.B, im impl, n int)) {
	for _, im := range impls() {
		for _, sz := range benchSizes {
			b.Run(im.name+"/"+sz.name, func(b *testing.B) { f(b, im, sz.n) })
		}
	}
}

// fill adds keys far in the future, spread over an hour.
func fill(s scheduler, keys []string, now time.Time) {
	for i, k := range keys {
		s.Add(k, struct{}{}, now, now.Add(time.Hour+time.Duration(i)*time.Microsecond))
	}
}

const benchBatch = 1024

// warmUp adds and cancels keys once, so that storage growth after fill is
// not timed.
func warmUp(s scheduler, keys []string, now time.Time) {
	for _, k := range keys {
		s.Add(k, struct{}{}, now, now.Add(2*time.Hour))
	}
	for _, k := range keys {
		s.Cancel(k)
	}
}

// prepare makes a scheduler of im with n future items pending, stopped when
// b ends, and returns it with a warmed-up batch of benchBatch extra keys and
// the time the items were added at.
func prepare(b *testing.B, im impl, n int) (s scheduler, wait func(), batch []string, now time.Time) {
	s, wait, stop := im.make()
	b.Cleanup(stop)
	now = time.Now()
	fill(s, benchKeys("bench", n), now)
	batch = benchKeys("extra", benchBatch)
	warmUp(s, batch, now)
	return s, wait, batch, now
}

// BenchmarkAdd: one Add of a future item with n items pending.
func BenchmarkAdd(b *testing.B) {
	runImpls(b, func(b *testing.B, im impl, n int) {
		s, _, batch, now := prepare(b, im, n)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			s.Add(batch[i], struct{}{}, now, now.Add(2*time.Hour+time.Duration(i)))
			if i++; i == benchBatch {
				b.StopTimer()
				for _, k := range batch {
					s.Cancel(k)
				}
				i = 0
				b.StartTimer()
			}
		}
	})
}

// BenchmarkCancel: one Cancel of a pending item with n items pending.
func BenchmarkCancel(b *testing.B) {
	runImpls(b, func(b *testing.B, im impl, n int) {
		s, _, batch, now := prepare(b, im, n)
		refill := func() {
			for j, k := range batch {
				// Spread over the pending range, like real cancels.
				s.Add(k, struct{}{}, now, now.Add(time.Hour+time.Duration(j*n/benchBatch)*time.Microsecond))
			}
		}
		refill()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			s.Cancel(batch[i])
			if i++; i == benchBatch {
				b.StopTimer()
				refill()
				i = 0
				b.StartTimer()
			}
		}
	})
}

// BenchmarkAddFire: one Add of an item due at once, including its work
// call, with n future items pending.
func BenchmarkAddFire(b *testing.B) {
	runImpls(b, func(b *testing.B, im impl, n int) {
		s, wait, batch, now := prepare(b, im, n)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			s.Add(batch[i], struct{}{}, now, now)
			if i++; i == benchBatch {
				wait()
				i = 0
			}
		}
		wait()
	})
}

// BenchmarkMemoryPerItem reports the live heap per pending item (B/item)
// after building a queue of n items.
func BenchmarkMemoryPerItem(b *testing.B) {
	runImpls(b, func(b *testing.B, im impl, n int) {
		keys := benchKeys("bench", n)
		now := time.Now()
		b.ReportAllocs()
		var perItem float64
		for b.Loop() {
			perItem = liveBytesPerItem(n, func() func() {
				s, _, stop := im.make()
				fill(s, keys, now)
				return func() { runtime.KeepAlive(s); stop() }
			})
		}
		b.ReportMetric(perItem, "B/item")
	})
}

// liveBytesPerItem measures the heap that build leaves live, per item; the
// returned func is called after the measurement to release it.
func liveBytesPerItem(n int, build func() func()) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	release := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	release()
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}

// BenchmarkParallelAddCancel: Add then Cancel of a future item from all
// Ps at once, on a queue with 100k items pending.
func BenchmarkParallelAddCancel(b *testing.B) {
	const lanes = 16
	pool := benchKeys("p", lanes*benchBatch)
	for _, im := range impls() {
		b.Run(im.name, func(b *testing.B) {
			s, _, stop := im.make()
			defer stop()
			now := time.Now()
			fill(s, benchKeys("bench", 100_000), now)
			warmUp(s, pool, now)
			var lane atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				l := int(lane.Add(1)-1) % lanes
				keys := pool[l*benchBatch : (l+1)*benchBatch]
				i := 0
				for pb.Next() {
					s.Add(keys[i], struct{}{}, now, now.Add(2*time.Hour))
					s.Cancel(keys[i])
					i = (i + 1) % benchBatch
				}
			})
		})
	}
}

// BenchmarkHeapPushPop: the synchronous heap alone, push one and pop one
// at size n.
func BenchmarkHeapPushPop(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			var h heap[int, struct{}]
			for i := range sz.n {
				h.Push(i, struct{}{}, t0, t0.Add(time.Duration(i)*time.Microsecond))
			}
			b.ReportAllocs()
			k := sz.n
			for b.Loop() {
				h.Push(k, struct{}{}, t0, t0.Add(time.Duration(k)*time.Microsecond))
				h.PopDue(t0.Add(time.Duration(k) * time.Microsecond))
				k++
			}
		})
	}
}

// BenchmarkRateLimited: Add, Remove, and Try of one due value with n
// values queued.
func BenchmarkRateLimited(b *testing.B) {
	for _, sz := range benchSizes[:2] {
		keys := benchKeys("node", sz.n)
		b.Run("add-remove/"+sz.name, func(b *testing.B) {
			r := NewRateLimited[string](always)
			for _, k := range keys {
				r.Add(t0, k, nil)
			}
			b.ReportAllocs()
			for b.Loop() {
				r.Add(t0, "extra", nil)
				r.Remove("extra")
			}
		})
		b.Run("try/"+sz.name, func(b *testing.B) {
			// Every value is retried 1 ns later: one Try hands out all n,
			// then the clock moves 1 ns and they are due again.
			clk := testclock.NewFakeClock(t0)
			r := NewRateLimited[string](always)
			for _, k := range keys {
				r.Add(clk.Now(), k, nil)
			}
			retry := func(TimedValue[string]) (bool, time.Duration) { return false, 0 }
			b.ReportAllocs()
			calls := 0
			for b.Loop() {
				calls += r.Try(clk.Now(), retry)
				clk.Step(1)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls), "ns/value")
		})
	}
}

// BenchmarkAddCancelRound: one op adds 1M items due in the same hour, then
// cancels them all, in the order added (the shape of the side-by-side
// benchmark in conformance/: every round empties the queue and fills it
// again). One untimed round first, as there, so that the storage the first
// fill grows is not timed.
func BenchmarkAddCancelRound(b *testing.B) {
	for _, im := range impls() {
		b.Run(im.name+"/items=1M", func(b *testing.B) {
			s, _, stop := im.make()
			defer stop()
			keys := benchKeys("ns", 1_000_000)
			round := func() {
				now := time.Now()
				for _, k := range keys {
					if !s.Add(k, struct{}{}, now, now.Add(time.Hour)) {
						b.Fatal("not added")
					}
				}
				for _, k := range keys {
					if !s.Cancel(k) {
						b.Fatal("not cancelled")
					}
				}
			}
			round()
			b.ReportAllocs()
			for b.Loop() {
				round()
			}
		})
	}
}
