package timedqueue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Schedule driven by hand: items start in (due, insertion) order, a
// started key holds a new item until it is reported, a cancel releases a
// started key, a retry keeps FireAt and counts the attempt, and a report
// of a key with nothing started changes nothing.
func TestSchedule(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	var s Schedule[string, int]
	starts := func(now time.Time) []string {
		var out []string
		for {
			it, ok := s.Start(now)
			if !ok {
				return out
			}
			out = append(out, it.Key)
		}
	}
	require.True(t, s.Add("b", 2, t0, at(5)))
	require.True(t, s.Add("a", 1, t0, at(5)))
	require.True(t, s.Add("c", 3, t0, at(1)))
	assert.False(t, s.Add("a", 9, t0, at(0)), "the first add of a pending key wins")
	next, ok := s.NextAt()
	require.True(t, ok)
	assert.Equal(t, at(1), next)
	assert.Empty(t, starts(at(0)))
	assert.Equal(t, []string{"c", "b", "a"}, starts(at(5)))
	assert.Equal(t, 3, s.Len())
	assert.Zero(t, s.Pending())

	// b started: an add is held until b is reported.
	it, ok := s.Get("b")
	require.True(t, ok)
	assert.Equal(t, Running, it.State)
	require.True(t, s.Add("b", 20, at(5), at(5)))
	assert.Empty(t, starts(at(5)), "held behind the started b")
	it, _ = s.Get("b")
	assert.Equal(t, Pending, it.State)
	assert.Equal(t, 20, it.Value)
	require.True(t, s.Finish("b"))
	assert.Equal(t, []string{"b"}, starts(at(5)), "due once the started one is reported")
	require.True(t, s.Finish("b"))
	assert.False(t, s.Finish("b"), "nothing started")

	// a started and cancelled: released, no item; its retry is dropped.
	assert.False(t, s.Cancel("a"), "a started item is not cancelled")
	_, ok = s.Get("a")
	assert.False(t, ok)
	assert.False(t, s.Retry("a", at(9)))
	assert.False(t, s.Finish("a"))

	// c failed: due again at 9 with one attempt, FireAt kept.
	require.True(t, s.Retry("c", at(9)))
	assert.Empty(t, starts(at(8)))
	it, _ = s.Get("c")
	assert.Equal(t, Item[string, int]{Key: "c", Value: 3, CreatedAt: t0, FireAt: at(1), State: Pending, Attempts: 1}, it)
	assert.True(t, s.Cancel("c"), "a waiting retry is cancelled like any pending item")
	assert.Zero(t, s.Len())
	_, ok = s.NextAt()
	assert.False(t, ok)
}
