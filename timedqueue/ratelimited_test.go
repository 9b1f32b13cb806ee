package timedqueue

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	testclock "k8s.io/utils/clock/testing"
)

var always = float32(math.Inf(1))

func newRL(qps float32) (*RateLimited[string], *testclock.FakeClock) {
	clk := testclock.NewFakeClock(t0)
	return NewRateLimited[string](qps), clk
}

func values(vs []TimedValue[string]) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, v.Value)
	}
	return out
}

// done processes every value and records the order.
func done(got *[]string) func(TimedValue[string]) (bool, time.Duration) {
	return func(v TimedValue[string]) (bool, time.Duration) {
		*got = append(*got, v.Value)
		return true, 0
	}
}

// TestRateLimitedRemove: a removed value is never processed, whichever of
// the three it is.
func TestRateLimitedRemove(t *testing.T) {
	all := []string{"first", "second", "third"}
	for _, gone := range all {
		t.Run("remove "+gone, func(t *testing.T) {
			r, clk := newRL(always)
			for _, v := range all {
				require.True(t, r.Add(clk.Now(), v, "uid-"+v))
			}
			assert.True(t, r.Remove(gone))
			var want []string
			for _, v := range all {
				if v != gone {
					want = append(want, v)
				}
				assert.Equal(t, v != gone, r.Has(v), "set membership of %s", v)
			}
			assert.Equal(t, want, values(r.Values()), "heap")
			assert.Equal(t, 2, r.Len())
		})
	}
}

// TestRateLimitedRules covers the rate-limited queue's rules one case at a
// time.
func TestRateLimitedRules(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"always-accept limiter processes all but the removed", func(t *testing.T) {
			r, clk := newRL(always)
			r.Add(clk.Now(), "first", nil)
			r.Add(clk.Now(), "second", nil)
			r.Add(clk.Now(), "third", nil)
			r.Remove("second")
			var got []string
			assert.Equal(t, 2, r.Try(clk.Now(), done(&got)))
			assert.Equal(t, []string{"first", "third"}, got)
			assert.Zero(t, r.Len())
		}},
		{"tombstones", func(t *testing.T) {
			r, clk := newRL(always)
			require.True(t, r.Add(clk.Now(), "a", nil))
			var got []string
			r.Try(clk.Now(), done(&got))
			assert.False(t, r.Add(clk.Now(), "a", nil), "processed")
			assert.True(t, r.Has("a"))
			_, queued := r.Get("a")
			assert.False(t, queued)
			assert.True(t, r.Remove("a"), "removing a tombstone")
			assert.False(t, r.Remove("a"))
			assert.True(t, r.Add(clk.Now(), "a", nil))
		}},
		{"retries keep AddedAt and wait wait+1ns", func(t *testing.T) {
			r, clk := newRL(always)
			for _, v := range []string{"first", "second", "third"} {
				clk.Step(time.Millisecond)
				r.Add(clk.Now(), v, "uid-"+v)
			}
			clk.Step(time.Millisecond) // t = 4 ms
			var calls []string
			fn := func(v TimedValue[string]) (bool, time.Duration) {
				calls = append(calls, v.Value)
				if v.Value == "second" {
					return false, 2 * time.Millisecond
				}
				return true, 0
			}
			assert.Equal(t, 3, r.Try(clk.Now(), fn))
			assert.Equal(t, []string{"first", "second", "third"}, calls)
			assert.True(t, r.Has("first"), "processed")
			assert.False(t, r.Add(clk.Now(), "first", nil))
			v, ok := r.Get("second")
			require.True(t, ok)
			assert.Equal(t, TimedValue[string]{Value: "second", UID: "uid-second",
				AddedAt: t0.Add(2 * time.Millisecond), ProcessAt: t0.Add(6*time.Millisecond + 1)}, v)
			clk.Step(2 * time.Millisecond) // t = 6 ms
			assert.Zero(t, r.Try(clk.Now(), fn))
			clk.Step(1)
			assert.Equal(t, 1, r.Try(clk.Now(), fn))
			assert.Equal(t, []string{"first", "second", "third", "second"}, calls)
		}},
		{"a value removed while fn runs is not retried", func(t *testing.T) {
			r, clk := newRL(always)
			r.Add(clk.Now(), "first", nil)
			r.Add(clk.Now(), "second", nil)
			var calls []string
			r.Try(clk.Now(), func(v TimedValue[string]) (bool, time.Duration) {
				calls = append(calls, v.Value)
				if v.Value == "second" {
					assert.True(t, r.Remove("second"))
					return false, 0
				}
				return true, 0
			})
			assert.Equal(t, []string{"first", "second"}, calls)
			assert.False(t, r.Has("second"))
			assert.Zero(t, r.Len())
		}},
		{"clear forgets values and tombstones", func(t *testing.T) {
			r, clk := newRL(always)
			r.Add(clk.Now(), "done", nil)
			var got []string
			r.Try(clk.Now(), done(&got))
			r.Add(clk.Now(), "queued", nil)
			r.Clear()
			assert.Zero(t, r.Len())
			assert.False(t, r.Has("done"))
			assert.False(t, r.Has("queued"))
			assert.True(t, r.Add(clk.Now(), "done", nil))
		}},
		{"one token per 1/qps", func(t *testing.T) {
			r, clk := newRL(10)
			for _, v := range []string{"a", "b", "c"} {
				r.Add(clk.Now(), v, nil)
			}
			var got []string
			assert.Equal(t, 1, r.Try(clk.Now(), done(&got)))
			assert.Zero(t, r.Try(clk.Now(), done(&got)))
			clk.Step(100 * time.Millisecond)
			assert.Equal(t, 1, r.Try(clk.Now(), done(&got)))
			assert.Equal(t, []string{"a", "b"}, got)
		}},
		{"the token is drawn before the due check", func(t *testing.T) {
			r, clk := newRL(10)
			r.Add(clk.Now(), "slow", nil)
			assert.Equal(t, 1, r.Try(clk.Now(), func(TimedValue[string]) (bool, time.Duration) { return false, time.Second }))
			clk.Step(110 * time.Millisecond)
			var got []string
			assert.Zero(t, r.Try(clk.Now(), done(&got)), "not due; the token is spent")
			r.Add(clk.Now(), "new", nil)
			assert.Zero(t, r.Try(clk.Now(), done(&got)), "due, but no token")
			clk.Step(100 * time.Millisecond)
			assert.Equal(t, 1, r.Try(clk.Now(), done(&got)))
			assert.Equal(t, []string{"new"}, got)
		}},
		{"set rate", func(t *testing.T) {
			r, clk := newRL(10)
			lim := r.lim
			r.SetRate(clk.Now(), 10)
			assert.Same(t, lim, r.lim, "same qps keeps the limiter")
			r.SetRate(clk.Now(), 0)
			r.Add(clk.Now(), "a", nil)
			var got []string
			assert.Zero(t, r.Try(clk.Now(), done(&got)))
			assert.Zero(t, r.QPS())
			r.SetRate(clk.Now(), 5.5)
			assert.Equal(t, float32(5.5), r.QPS())
		}},
		{"the new bucket starts empty iff the old one was", func(t *testing.T) {
			r, clk := newRL(10)
			r.Add(clk.Now(), "a", nil)
			r.Add(clk.Now(), "b", nil)
			var got []string
			require.Equal(t, 1, r.Try(clk.Now(), done(&got)), "token used")
			r.SetRate(clk.Now(), 2)
			assert.Zero(t, r.Try(clk.Now(), done(&got)))
			clk.Step(500 * time.Millisecond)
			assert.Equal(t, 1, r.Try(clk.Now(), done(&got)))

			r2, clk := newRL(10)
			r2.Add(clk.Now(), "a", nil)
			r2.SetRate(clk.Now(), 2) // the old bucket's token is spent in the swap
			assert.Equal(t, 1, r2.Try(clk.Now(), done(&got)))
		}},
		{"a stopped queue resumes at rate 1 (upstream stays stopped)", func(t *testing.T) {
			// Upstream's stopped limiter reports QPS 1, so SwapLimiter(1) is a
			// no-op there and evictions stay stopped.
			r, clk := newRL(0.1)
			r.Add(clk.Now(), "a", nil)
			r.SetRate(clk.Now(), 0)
			r.SetRate(clk.Now(), 1)
			var got []string
			assert.Zero(t, r.Try(clk.Now(), done(&got)), "resumed bucket starts empty")
			clk.Step(time.Second)
			assert.Equal(t, 1, r.Try(clk.Now(), done(&got)))
		}},
		{"equal process times are FIFO (upstream: heap order)", func(t *testing.T) {
			// Upstream's heap yields a e d c b.
			r, clk := newRL(always)
			for _, v := range []string{"a", "b", "c", "d", "e"} {
				r.Add(clk.Now(), v, nil)
			}
			var got []string
			r.Try(clk.Now(), done(&got))
			assert.Equal(t, []string{"a", "b", "c", "d", "e"}, got)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.run)
	}
}

func TestRateLimitedUpstreamEdges(t *testing.T) {
	t.Run("remove and re-add during a failing fn: the old value is retried", func(t *testing.T) {
		// Kept as upstream: a retry overwrites the entry added afresh while fn ran.
		r, clk := newRL(always)
		r.Add(clk.Now(), "n", "old")
		clk.Step(time.Second)
		r.Try(clk.Now(), func(v TimedValue[string]) (bool, time.Duration) {
			r.Remove("n")
			r.Add(clk.Now(), "n", "new")
			return false, time.Minute
		})
		v, ok := r.Get("n")
		require.True(t, ok)
		assert.Equal(t, TimedValue[string]{Value: "n", UID: "old", AddedAt: t0, ProcessAt: t0.Add(time.Second + time.Minute + 1)}, v)
	})
	t.Run("remove and re-add during a succeeding fn: the add is lost", func(t *testing.T) {
		r, clk := newRL(always)
		r.Add(clk.Now(), "n", nil)
		r.Try(clk.Now(), func(TimedValue[string]) (bool, time.Duration) {
			r.Remove("n")
			r.Add(clk.Now(), "n", nil)
			return true, 0
		})
		assert.True(t, r.Has("n"))
		assert.Zero(t, r.Len(), "tombstone")
	})
	t.Run("constructor rate 0 yields one token, like a zero-rate bucket", func(t *testing.T) {
		r, clk := newRL(0)
		r.Add(clk.Now(), "a", nil)
		r.Add(clk.Now(), "b", nil)
		var got []string
		assert.Equal(t, 1, r.Try(clk.Now(), done(&got)))
		clk.Step(time.Hour)
		assert.Zero(t, r.Try(clk.Now(), done(&got)))
		r.SetRate(clk.Now(), 0)
		assert.Zero(t, r.Try(clk.Now(), done(&got)), "same configured rate: no-op")
	})
	t.Run("set rate does not wait for a running fn", func(t *testing.T) {
		r, clk := newRL(always)
		r.Add(clk.Now(), "a", nil)
		r.Add(clk.Now(), "b", nil)
		var got []string
		r.Try(clk.Now(), func(v TimedValue[string]) (bool, time.Duration) {
			got = append(got, v.Value)
			r.SetRate(clk.Now(), 0) // upstream would deadlock here: SwapLimiter waits for Try
			return true, 0
		})
		assert.Equal(t, []string{"a"}, got, "stopped before the second token")
	})
	t.Run("next due", func(t *testing.T) {
		r, clk := newRL(always)
		_, ok := r.NextDue()
		assert.False(t, ok)
		r.Add(clk.Now(), "a", nil)
		at, ok := r.NextDue()
		require.True(t, ok)
		assert.Equal(t, t0, at)
		r.Try(clk.Now(), func(TimedValue[string]) (bool, time.Duration) { return false, time.Second })
		at, _ = r.NextDue()
		assert.Equal(t, clk.Now().Add(time.Second+1), at)
	})
	t.Run("NaN and negative rates stop", func(t *testing.T) {
		r, clk := newRL(1)
		r.Add(clk.Now(), "a", nil)
		var got []string
		r.SetRate(clk.Now(), float32(math.NaN()))
		assert.Zero(t, r.QPS())
		assert.Zero(t, r.Try(clk.Now(), done(&got)), "stopped by NaN")
		r.SetRate(clk.Now(), 1)
		r.SetRate(clk.Now(), -3)
		assert.Zero(t, r.QPS())
		clk.Step(time.Minute)
		assert.Zero(t, r.Try(clk.Now(), done(&got)), "stopped by a negative rate")
		assert.Empty(t, got)
	})
	t.Run("default rates: 0.1 qps is one node per ten seconds", func(t *testing.T) {
		r, clk := newRL(0.1)
		for _, v := range []string{"a", "b", "c"} {
			r.Add(clk.Now(), v, nil)
		}
		var got []string
		var at []time.Duration
		for range 201 { // poll every 100 ms for 20 s, as upstream does
			if r.Try(clk.Now(), done(&got)) > 0 {
				at = append(at, clk.Since(t0))
			}
			clk.Step(100 * time.Millisecond)
		}
		assert.Equal(t, []string{"a", "b", "c"}, got)
		assert.Equal(t, []time.Duration{0, 10 * time.Second, 20 * time.Second}, at)
	})
}

// drawsAt reports whether a Try at t draws a token from r, whose values are
// all due: true when it hands out a value (which is then processed; an
// unlimited queue hands out all). A Try that draws nothing changes nothing.
func drawsAt(r *RateLimited[string], t time.Time) bool {
	return r.Try(t, func(TimedValue[string]) (bool, time.Duration) { return true, 0 }) > 0
}

func TestRateLimitedNextToken(t *testing.T) {
	never := time.Time{}
	tests := []struct {
		name   string
		qps    float32
		setup  func(r *RateLimited[string]) // at t0, with three due values queued
		wantAt time.Time                    // for NextToken(t0); zero: want false
	}{
		{"a new bucket holds a token", 0.1, func(*RateLimited[string]) {}, t0},
		{"unlimited", always, func(*RateLimited[string]) {}, t0},
		{"stopped", 1, func(r *RateLimited[string]) { r.SetRate(t0, 0) }, never},
		{"rate 0 after its one token", 0, func(r *RateLimited[string]) { drawsAt(r, t0) }, never},
		{"rate 0 before its one token", 0, func(*RateLimited[string]) {}, t0},
		// The bucket lets a draw through when less than a nanosecond's
		// worth of token is missing: at 1 qps, 1 ns before the second.
		{"1 qps: a second after the draw", 1, func(r *RateLimited[string]) { drawsAt(r, t0) }, t0.Add(time.Second - 1)},
		{"the draw was earlier", 1, func(r *RateLimited[string]) { drawsAt(r, t0.Add(-300*time.Millisecond)) }, t0.Add(700*time.Millisecond - 1)},
		// float32(0.1) is 0.100000001490116…: the bucket fills about 149 ns
		// before ten seconds are up.
		{"float32 0.1 qps: just under ten seconds", 0.1, func(r *RateLimited[string]) { drawsAt(r, t0) }, t0.Add(10*time.Second - 150*time.Nanosecond)},
		{"a new rate refills at its own pace", 1, func(r *RateLimited[string]) { drawsAt(r, t0); r.SetRate(t0, 0.5) }, t0.Add(2 * time.Second)},
		{"a tiny rate: centuries away", 1e-12, func(r *RateLimited[string]) { drawsAt(r, t0) }, never},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRateLimited[string](tc.qps)
			for _, v := range []string{"a", "b", "c"} {
				r.Add(t0.Add(-time.Second), v, nil)
			}
			tc.setup(r)
			at, ok := r.NextToken(t0)
			if tc.wantAt.IsZero() {
				assert.False(t, ok, "NextToken = %v", at)
				assert.Zero(t, at)
				assert.False(t, drawsAt(r, t0.Add(time.Hour)), "a token an hour later")
				return
			}
			require.True(t, ok)
			assert.Equal(t, tc.wantAt, at, "off by %v", at.Sub(tc.wantAt))
			if at.After(t0) {
				assert.False(t, drawsAt(r, at.Add(-1)), "a token a nanosecond early")
			}
			assert.True(t, drawsAt(r, at), "no token at NextToken")
		})
	}
}

// NextToken changes nothing: asking twice, or asking and then drawing, is
// the same as not asking.
func TestRateLimitedNextTokenIsARead(t *testing.T) {
	r := NewRateLimited[string](2)
	r.Add(t0, "a", nil)
	r.Add(t0, "b", nil)
	require.True(t, drawsAt(r, t0))
	first, ok := r.NextToken(t0)
	require.True(t, ok)
	again, _ := r.NextToken(t0)
	assert.Equal(t, first, again)
	later, _ := r.NextToken(t0.Add(100 * time.Millisecond))
	assert.Equal(t, first, later, "the same token, asked later")
	assert.Equal(t, 1, r.Len())
}

// Take and Settle are Try split in two, for a caller that learns a value's outcome later:
// Take draws a token and hands out the head, nothing more until Settle; Settle with done
// leaves a tombstone, without it queues the value again after wait, with its AddedAt and UID.
func TestRateLimitedTakeSettle(t *testing.T) {
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	q := NewRateLimited[string](math.MaxFloat32)
	q.Add(t0, "a", "uid-a")
	q.Add(t0, "b", "uid-b")

	v, ok := q.Take(t0)
	require.True(t, ok)
	assert.Equal(t, TimedValue[string]{Value: "a", UID: "uid-a", AddedAt: t0, ProcessAt: t0}, v)
	_, ok = q.Take(t0)
	assert.False(t, ok, "a is handed out and not settled: nothing more")
	assert.Zero(t, q.Try(t0, func(TimedValue[string]) (bool, time.Duration) { return true, 0 }), "nor does Try")

	q.Settle(t0, v, false, time.Second)
	got, ok := q.Get("a")
	require.True(t, ok)
	assert.Equal(t, TimedValue[string]{Value: "a", UID: "uid-a", AddedAt: t0, ProcessAt: t0.Add(time.Second + 1)}, got)

	v, ok = q.Take(t0)
	require.True(t, ok)
	assert.Equal(t, "b", v.Value, "a is not due before its retry")
	q.Settle(t0, v, true, 0)
	assert.True(t, q.Has("b"))
	assert.False(t, q.Add(t0, "b", "uid-b"), "b is processed: a tombstone")
}

// A value removed between Take and Settle stays removed, whatever Settle says: no tombstone,
// no retry.
func TestRateLimitedSettleAfterRemove(t *testing.T) {
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, done := range []bool{true, false} {
		q := NewRateLimited[string](math.MaxFloat32)
		q.Add(t0, "a", nil)
		v, ok := q.Take(t0)
		require.True(t, ok)
		require.True(t, q.Remove("a"))
		q.Settle(t0, v, done, 0)
		assert.False(t, q.Has("a"), "done=%v", done)
		assert.True(t, q.Add(t0, "a", nil), "done=%v: a may be added again", done)
	}
}
