package timedqueue

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestIndexMatchesMap drives a heap's index with keys that collide in a
// small table (random inserts and removes, the table growing as it fills)
// and checks after every step that exactly the keys of a map model are
// found, each at its slot, and that removal left no entry unreachable.
func TestIndexMatchesMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var h heap[int, struct{}]
		model := map[int]bool{}
		t0 := time.Unix(0, 0)
		for i := range rapid.IntRange(1, 200).Draw(t, "steps") {
			k := rapid.IntRange(0, 40).Draw(t, "key"+strconv.Itoa(i))
			if rapid.Bool().Draw(t, "push"+strconv.Itoa(i)) {
				if got := h.Push(k, struct{}{}, t0, t0.Add(time.Duration(k))); got == model[k] {
					t.Fatalf("Push(%d) = %v with the key present: %v", k, got, model[k])
				}
				model[k] = true
			} else {
				if _, got := h.Remove(k); got != model[k] {
					t.Fatalf("Remove(%d) = %v, want %v", k, got, model[k])
				}
				delete(model, k)
			}
			for k := range 41 {
				it, ok := h.Get(k)
				if ok != model[k] || ok && it.Key != k {
					t.Fatalf("Get(%d) = %v, %v; model has it: %v", k, it, ok, model[k])
				}
			}
			if h.idx.n != len(model) {
				t.Fatalf("index counts %d keys, model %d", h.idx.n, len(model))
			}
		}
	})
}

func TestIndexRemoveWrapsAround(t *testing.T) {
	// Entries whose home is the last bucket wrap to the first ones; removing
	// the one at home must pull them back across the end of the table, and
	// leave the entry that sits at its own home where it is.
	ix := index{buckets: make([]uint64, 8)}
	ix.set(7, 7, 0)  // home 7
	ix.set(0, 7, 1)  // home 7, wrapped
	ix.set(1, 1, 2)  // home 1
	ix.set(2, 15, 3) // home 7 (15 & 7), wrapped past bucket 1
	ix.remove(7)
	assert.Equal(t, 7, ix.bucketOf(7, 1))
	assert.Equal(t, 0, ix.bucketOf(15, 3))
	assert.Equal(t, 1, ix.bucketOf(1, 2))
	assert.Zero(t, ix.buckets[2])
	assert.Equal(t, 3, ix.n)
}

func TestPushOrderSurvivesWrap(t *testing.T) {
	// The 32-bit push counter wraps after 2³² pushes; the heap renumbers its
	// entries first, so FIFO among equal fire times holds across it.
	var h heap[string, struct{}]
	at := time.Unix(100, 0)
	h.Push("early", struct{}{}, at, at.Add(-time.Second))
	h.seq = math.MaxUint32 - 2
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		require.True(t, h.Push(k, struct{}{}, at, at))
	}
	require.True(t, h.Update("a", struct{}{}, at, at), "a goes last among equals")
	assert.Less(t, h.seq, uint32(10), "renumbered")
	assert.Equal(t, []string{"early", "b", "c", "d", "e", "a"}, popAll(&h, at))
}

func TestStoredTimes(t *testing.T) {
	loc := time.FixedZone("X", -7*3600)
	mono := time.Now()
	tests := []struct {
		name string
		in   time.Time
		want time.Time
	}{
		{"a UTC time is kept exactly", time.Date(2026, 3, 1, 12, 0, 0, 7, time.UTC), time.Date(2026, 3, 1, 12, 0, 0, 7, time.UTC)},
		{"the location is kept", time.Date(2026, 3, 1, 12, 0, 0, 7, loc), time.Date(2026, 3, 1, 12, 0, 0, 7, loc)},
		{"the monotonic reading is dropped", mono, mono.Round(0)},
		{"the zero Time stays zero", time.Time{}, time.Time{}},
		{"early times are clamped to 1677", time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC), time.Unix(0, zeroNanos+1).UTC()},
		{"late times are clamped to 2262", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), time.Unix(0, math.MaxInt64).UTC()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, timeAt(nanos(tc.in), tc.in.Location()))
		})
	}
}

// TestStoredTimesOrderAndRoundTrip: a time in range comes back equal, and
// the stored form orders as the times do, from just after the zero Time
// (which sorts first) to the year 11,000 (clamping only merges the ends).
func TestStoredTimesOrderAndRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sec := func(name string) time.Time {
			return time.Unix(rapid.Int64Range(-62_135_596_799, 300_000_000_000).Draw(t, name), rapid.Int64Range(0, 999_999_999).Draw(t, name+"ns")).UTC()
		}
		a, b := sec("a"), sec("b")
		if na, nb := nanos(a), nanos(b); a.Before(b) && na > nb || a.Equal(b) && na != nb {
			t.Fatalf("nanos(%v) = %d, nanos(%v) = %d: out of order", a, na, b, nb)
		}
		if s := a.Unix(); s >= minSec && s <= maxSec && !timeAt(nanos(a), time.UTC).Equal(a) {
			t.Fatalf("%v came back as %v", a, timeAt(nanos(a), time.UTC))
		}
	})
}
