package timedqueue

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// popAll pops every item due at now and returns the keys.
func popAll[K comparable](h *heap[K, struct{}], now time.Time) []K {
	var out []K
	for {
		it, ok := h.PopDue(now)
		if !ok {
			return out
		}
		out = append(out, it.Key)
	}
}

func TestHeap(t *testing.T) {
	sec := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
	tests := []struct {
		name string
		run  func(t *testing.T, h *heap[string, struct{}])
	}{
		{"zero heap is empty", func(t *testing.T, h *heap[string, struct{}]) {
			assert.Zero(t, h.Len())
			_, ok := h.Peek()
			assert.False(t, ok)
			_, ok = h.NextAt()
			assert.False(t, ok)
			_, ok = h.PopDue(sec(100))
			assert.False(t, ok)
			_, ok = h.Remove("x")
			assert.False(t, ok)
			assert.False(t, h.Update("x", struct{}{}, t0, t0))
			h.Clear()
		}},
		{"pops in fire-time order, FIFO among equal times", func(t *testing.T, h *heap[string, struct{}]) {
			for _, p := range []struct {
				k string
				s int
			}{{"c", 3}, {"a", 1}, {"b1", 2}, {"b2", 2}, {"b3", 2}, {"d", 4}} {
				require.True(t, h.Push(p.k, struct{}{}, t0, sec(p.s)))
			}
			assert.Equal(t, []string{"a", "b1", "b2", "b3"}, popAll(h, sec(2)))
			assert.Equal(t, 2, h.Len())
		}},
		{"a duplicate push is refused", func(t *testing.T, h *heap[string, struct{}]) {
			require.True(t, h.Push("k", struct{}{}, t0, sec(1)))
			assert.False(t, h.Push("k", struct{}{}, t0, sec(0)))
			at, _ := h.NextAt()
			assert.Equal(t, sec(1), at)
		}},
		{"pop due is inclusive of now", func(t *testing.T, h *heap[string, struct{}]) {
			h.Push("k", struct{}{}, t0, sec(1))
			_, ok := h.PopDue(sec(1).Add(-1))
			assert.False(t, ok)
			it, ok := h.PopDue(sec(1))
			require.True(t, ok)
			assert.Equal(t, Item[string, struct{}]{Key: "k", CreatedAt: t0, FireAt: sec(1), State: Pending}, it)
			_, ok = h.Get("k")
			assert.False(t, ok, "popped items are forgotten")
		}},
		{"remove and update re-position", func(t *testing.T, h *heap[string, struct{}]) {
			for i, k := range []string{"a", "b", "c", "d", "e", "f", "g"} {
				h.Push(k, struct{}{}, t0, sec(i))
			}
			it, ok := h.Remove("a")
			require.True(t, ok)
			assert.Equal(t, "a", it.Key)
			assert.True(t, h.Update("g", struct{}{}, t0, sec(-1)))
			assert.True(t, h.Update("b", struct{}{}, t0, sec(10)))
			p, _ := h.Peek()
			assert.Equal(t, "g", p.Key)
			assert.Equal(t, []string{"g", "c", "d", "e", "f", "b"}, popAll(h, sec(100)))
		}},
		{"update makes the item the last of its time", func(t *testing.T, h *heap[string, struct{}]) {
			h.Push("a", struct{}{}, t0, sec(1))
			h.Push("b", struct{}{}, t0, sec(1))
			h.Update("a", struct{}{}, t0.Add(time.Minute), sec(1))
			assert.Equal(t, []string{"b", "a"}, popAll(h, sec(1)))
		}},
		{"get returns the stored times", func(t *testing.T, h *heap[string, struct{}]) {
			h.Push("k", struct{}{}, sec(-5), sec(5))
			it, ok := h.Get("k")
			require.True(t, ok)
			assert.Equal(t, Item[string, struct{}]{Key: "k", CreatedAt: sec(-5), FireAt: sec(5), State: Pending}, it)
		}},
		{"next at keeps the fire time's location", func(t *testing.T, h *heap[string, struct{}]) {
			loc := time.FixedZone("X", 3600)
			h.Push("k", struct{}{}, t0, sec(5).In(loc))
			at, ok := h.NextAt()
			require.True(t, ok)
			assert.True(t, at.Equal(sec(5)))
			assert.Equal(t, loc, at.Location())
		}},
		{"each time keeps its own location", func(t *testing.T, h *heap[string, struct{}]) {
			created, fire := time.FixedZone("C", -7200), time.FixedZone("F", 3600)
			h.Push("k", struct{}{}, sec(-5).In(created), sec(5).In(fire))
			it, ok := h.Get("k")
			require.True(t, ok)
			assert.Equal(t, created, it.CreatedAt.Location(), "CreatedAt is not shown in FireAt's location")
			assert.Equal(t, fire, it.FireAt.Location())
			_, started, due, ok := h.start(sec(5))
			require.True(t, ok)
			assert.Equal(t, created, started.CreatedAt.Location())
			assert.Equal(t, fire, due.Location(), "the due time is not turned to UTC")
		}},
		{"monotonic readings are ignored", func(t *testing.T, h *heap[string, struct{}]) {
			now := time.Now()
			h.Push("mono", struct{}{}, now, now.Add(time.Second))
			h.Push("wall", struct{}{}, now, now.Round(0).Add(500*time.Millisecond))
			assert.Equal(t, []string{"wall", "mono"}, popAll(h, now.Round(0).Add(time.Second)))
		}},
		{"extreme times order correctly, clamped to the years 1678 to 2262", func(t *testing.T, h *heap[string, struct{}]) {
			h.Push("far", struct{}{}, t0, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
			h.Push("zero", struct{}{}, time.Time{}, time.Time{})
			h.Push("old", struct{}{}, t0, time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC))
			zero, _ := h.Get("zero")
			assert.True(t, zero.CreatedAt.IsZero() && zero.FireAt.IsZero(), "the zero Time stays zero")
			old, _ := h.Get("old")
			assert.Equal(t, 1677, old.FireAt.Year())
			far, _ := h.Get("far")
			assert.Equal(t, 2262, far.FireAt.Year())
			assert.Equal(t, []string{"zero", "old"}, popAll(h, t0))
			assert.Equal(t, []string{"far"}, popAll(h, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)))
		}},
		{"popped and removed slots are cleared", func(t *testing.T, h *heap[string, struct{}]) {
			for i, k := range []string{"a", "b", "c"} {
				h.Push(k, struct{}{}, t0, sec(i))
			}
			h.PopDue(sec(0))
			h.Remove("b")
			for _, s := range h.free {
				assert.Equal(t, slot[string, struct{}]{pos: posFree}, *h.at(s))
			}
			assert.Len(t, h.free, 2)
			assert.Equal(t, elem{}, h.elems[:cap(h.elems)][1], "vacated array slot cleared")
			h.Push("d", struct{}{}, t0, sec(5))
			assert.Len(t, h.free, 1, "slots are reused")
		}},
		{"a drained heap keeps its storage and refills without allocating", func(t *testing.T, h *heap[string, struct{}]) {
			keys := make([]string, 4*shrinkAbove)
			for i := range keys {
				keys[i] = string(rune(i + 0x100))
			}
			fill := func() {
				for i, k := range keys {
					h.Push(k, struct{}{}, t0, sec(i))
				}
			}
			fill()
			slots, elems := slabCap(h), cap(h.elems)
			assert.Len(t, popAll(h, sec(len(keys))), len(keys))
			assert.Equal(t, slots, slabCap(h), "slab kept")
			assert.Equal(t, elems, cap(h.elems), "heap array kept")
			allocs := testing.AllocsPerRun(3, func() {
				fill()
				h.Clear()
			})
			assert.Zero(t, allocs, "a refill reuses the storage")
			assert.Equal(t, slots, slabCap(h), "Clear keeps the slab too")
		}},
		{"a large heap that stays small gives its storage back", func(t *testing.T, h *heap[string, struct{}]) {
			const n = 4 * shrinkAbove
			for i := range n {
				h.Push(strconv.Itoa(i), struct{}{}, t0, sec(i))
			}
			// Keep 10 items, the last ones pushed, and churn one more: the
			// slab is compacted once it has been under a quarter in use for
			// n releases.
			for i := range n - 10 {
				_, ok := h.Remove(strconv.Itoa(i))
				require.True(t, ok)
			}
			for i := 0; slabCap(h) >= n; i++ {
				require.Less(t, i, 2*n, "never compacted")
				require.True(t, h.Push("churn", struct{}{}, t0, sec(n+i)))
				_, ok := h.Remove("churn")
				require.True(t, ok)
			}
			assert.Equal(t, pageSize, slabCap(h), "one page for the items in use")
			assert.Empty(t, h.free)
			for i := n - 10; i < n; i++ {
				it, ok := h.Get(strconv.Itoa(i))
				require.True(t, ok)
				assert.Equal(t, sec(i), it.FireAt)
			}
			want := make([]string, 0, 10)
			for i := n - 10; i < n; i++ {
				want = append(want, strconv.Itoa(i))
			}
			assert.Equal(t, want, popAll(h, sec(n)))
		}},
		{"a large heap emptied for long gives everything back", func(t *testing.T, h *heap[string, struct{}]) {
			for i := range 2 * shrinkAbove {
				h.Push(strconv.Itoa(i), struct{}{}, t0, sec(i))
			}
			popAll(h, sec(2*shrinkAbove))
			require.NotNil(t, h.pages, "one drain keeps the storage")
			for i := 0; h.pages != nil; i++ {
				require.Less(t, i, 4*shrinkAbove, "never released")
				h.Push("churn", struct{}{}, t0, t0)
				h.PopDue(t0)
			}
			assert.Nil(t, h.idx.buckets)
			assert.Nil(t, h.elems)
			assert.True(t, h.Push("again", struct{}{}, t0, t0))
			assert.Equal(t, 1, h.Len())
		}},
		{"dropping the pending items gives the storage back", func(t *testing.T, h *heap[string, struct{}]) {
			for i := range 2 * shrinkAbove {
				h.Push(strconv.Itoa(i), struct{}{}, t0, sec(i))
			}
			h.dropPending()
			assert.Nil(t, h.pages)
			assert.Nil(t, h.idx.buckets)
			assert.Zero(t, h.Len())
		}},
		{"storage is not compacted while a running item holds a slot", func(t *testing.T, h *heap[string, struct{}]) {
			for i := range 2 * shrinkAbove {
				h.Push(strconv.Itoa(i), struct{}{}, t0, sec(i))
			}
			s, it, _, ok := h.start(sec(0))
			require.True(t, ok)
			require.Equal(t, "0", it.Key)
			popAll(h, sec(2*shrinkAbove))
			for range 4 * shrinkAbove { // well past the compaction threshold
				h.Push("churn", struct{}{}, t0, sec(0))
				h.Remove("churn")
			}
			h.compact()
			assert.Equal(t, 2*shrinkAbove, int(h.nslots), "not compacted")
			assert.Equal(t, "0", h.at(s).key, "the running slot is where its call expects it")
			h.finish(s)
			assert.Nil(t, h.pages, "compacted once the call finished")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, &heap[string, struct{}]{})
		})
	}
}

func TestStateString(t *testing.T) {
	assert.Equal(t, "pending", Pending.String())
	assert.Equal(t, "running", Running.String())
	assert.Equal(t, "State(0)", State(0).String())
}

// slabCap returns the number of slots the slab's pages hold.
func slabCap[K comparable, V any](h *heap[K, V]) int { return len(h.pages) * pageSize }
