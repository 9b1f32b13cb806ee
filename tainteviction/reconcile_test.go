package tainteviction

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/tolerations"
)

const (
	noExec = v1.TaintEffectNoExecute
	exists = v1.TolerationOpExists
)

type (
	Decision = tolerations.Decision
)

const (
	Never      = tolerations.Never
	EvictNow   = tolerations.EvictNow
	EvictAfter = tolerations.EvictAfter
)

func secs(s int64) *int64 { return &s }

// tol builds a toleration; seconds is nil unless given.
func tol(key string, op v1.TolerationOperator, value string, effect v1.TaintEffect, seconds ...int64) v1.Toleration {
	t := v1.Toleration{Key: key, Operator: op, Value: value, Effect: effect}
	if len(seconds) > 0 {
		t.TolerationSeconds = secs(seconds[0])
	}
	return t
}

func taint(key, value string, effect v1.TaintEffect) v1.Taint {
	return v1.Taint{Key: key, Value: value, Effect: effect}
}

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func TestReconcileRules(t *testing.T) {
	t1 := t0.Add(time.Second)
	pending := &Scheduled{CreatedAt: t0, FireAt: t0.Add(time.Second)}
	tests := []struct {
		name     string
		decision Decision
		existing *Scheduled
		now      time.Time
		want     Action
	}{
		{"never, nothing queued", Decision{Kind: Never}, nil, t1, Action{Cancel: true}},
		{"never, queued", Decision{Kind: Never}, pending, t1, Action{Cancel: true}},
		{"evict now, nothing queued", Decision{Kind: EvictNow}, nil, t1, Action{Cancel: true, Add: true, CreatedAt: t1, FireAt: t1}},
		{"evict now replaces a later eviction", Decision{Kind: EvictNow}, pending, t1, Action{Cancel: true, Add: true, CreatedAt: t1, FireAt: t1}},
		{"evict after, nothing queued", Decision{Kind: EvictAfter, Delay: time.Minute}, nil, t1, Action{Add: true, CreatedAt: t1, FireAt: t1.Add(time.Minute)}},
		{"evict after, queued before now: lengthening kept", Decision{Kind: EvictAfter, Delay: 100 * time.Second}, pending, t1, Action{}},
		{"evict after, queued before now: shortening to 0 kept", Decision{Kind: EvictAfter}, pending, t1, Action{}},
		{
			"evict after, queued at the same instant: re-added with the old createdAt",
			Decision{Kind: EvictAfter, Delay: time.Minute}, pending, t0,
			Action{Cancel: true, Add: true, CreatedAt: t0, FireAt: t0.Add(time.Minute)},
		},
		{
			"evict after, clock went back",
			Decision{Kind: EvictAfter, Delay: time.Minute}, pending, t0.Add(-time.Hour),
			Action{Cancel: true, Add: true, CreatedAt: t0, FireAt: t0.Add(-time.Hour + time.Minute)},
		},
		{
			"evict after, running after its timer: kept",
			Decision{Kind: EvictAfter, Delay: time.Minute}, &Scheduled{CreatedAt: t0, FireAt: t0.Add(time.Second), Running: true}, t1, Action{},
		},
		{
			"evict after, running since it was added: invisible upstream, key busy",
			Decision{Kind: EvictAfter, Delay: time.Minute}, &Scheduled{CreatedAt: t1, FireAt: t1, Running: true}, t1, Action{},
		},
		{"unknown kind does nothing", Decision{Kind: 7}, pending, t1, Action{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Reconcile(tc.decision, tc.existing, tc.now))
		})
	}
}

func TestActionString(t *testing.T) {
	assert.Equal(t, "keep", Action{}.String())
	assert.Equal(t, "cancel", Action{Cancel: true}.String())
	assert.Equal(t, "add(created 2026-03-04T05:06:07Z, fire 2026-03-04T05:06:08.5Z)",
		Action{Add: true, CreatedAt: t0, FireAt: t0.Add(1500 * time.Millisecond)}.String())
	assert.Equal(t, "cancel, add(created 2026-03-04T05:06:07Z, fire 2026-03-04T05:06:07Z)",
		Action{Cancel: true, Add: true, CreatedAt: t0, FireAt: t0}.String())
}

// fakeQueue follows the contract of upstream's queue, which the timed queue shares for these
// cases: Add refuses a key that is pending or running; Cancel removes a pending item (true) or
// releases a running one (false).
type fakeQueue struct {
	items map[string]*Scheduled
	ran   []string // "key@fireAt" for every item that started
}

func newFakeQueue() *fakeQueue { return &fakeQueue{items: map[string]*Scheduled{}} }

func (q *fakeQueue) Add(key string, createdAt, fireAt time.Time) bool {
	if _, ok := q.items[key]; ok {
		return false
	}
	q.items[key] = &Scheduled{CreatedAt: createdAt, FireAt: fireAt}
	return true
}

func (q *fakeQueue) Cancel(key string) bool {
	s, ok := q.items[key]
	if !ok {
		return false
	}
	delete(q.items, key)
	return !s.Running
}

func (q *fakeQueue) get(key string) *Scheduled {
	if s, ok := q.items[key]; ok {
		c := *s
		return &c
	}
	return nil
}

// advance starts every due item; started items stay Running until finish.
func (q *fakeQueue) advance(now time.Time) {
	for k, s := range q.items {
		if !s.Running && !now.Before(s.FireAt) {
			s.Running = true
			q.ran = append(q.ran, k+"@"+s.FireAt.Format(time.RFC3339Nano))
		}
	}
}

// process is processPodOnNode on the fake queue.
func (q *fakeQueue) process(key string, taints []v1.Taint, tols []v1.Toleration, now time.Time) (cancelled, added bool) {
	d := tolerations.NoExecuteDecision(taints, tols, tolerations.Options{})
	a := Reconcile(d, q.get(key), now)
	if a.Cancel {
		cancelled = q.Cancel(key)
	}
	if a.Add {
		added = q.Add(key, a.CreatedAt, a.FireAt)
	}
	return cancelled, added
}

func TestReconcileScheduledEvictionIsKept(t *testing.T) {
	// Lengthening or shortening a finite toleration keeps the eviction scheduled earlier
	// (upstream's test "lengthening toleration shouldn't work"); dropping it evicts at once.
	const pod = "ns/p"
	taints := []v1.Taint{taint("t1", "", noExec)}
	q := newFakeQueue()

	_, added := q.process(pod, taints, []v1.Toleration{tol("t1", exists, "", noExec, 1)}, t0)
	require.True(t, added)
	assert.Equal(t, &Scheduled{CreatedAt: t0, FireAt: t0.Add(time.Second)}, q.get(pod))

	t1 := t0.Add(500 * time.Millisecond)
	for _, seconds := range []int64{100, 0} {
		cancelled, added := q.process(pod, taints, []v1.Toleration{tol("t1", exists, "", noExec, seconds)}, t1)
		assert.False(t, cancelled)
		assert.False(t, added)
		assert.Equal(t, &Scheduled{CreatedAt: t0, FireAt: t0.Add(time.Second)}, q.get(pod), "seconds %d", seconds)
	}

	cancelled, added := q.process(pod, taints, nil, t1)
	assert.True(t, cancelled, "the cancel event is emitted")
	assert.True(t, added)
	assert.Equal(t, &Scheduled{CreatedAt: t1, FireAt: t1}, q.get(pod))
	q.advance(t1)
	assert.Equal(t, []string{pod + "@" + t1.Format(time.RFC3339Nano)}, q.ran, "evicted at once")
}

func TestReconcileTaintRemovedCancels(t *testing.T) {
	// Removing the one taint that was tolerated for a while, while another stays tolerated
	// forever, cancels the eviction.
	const pod = "ns/p"
	tols := []v1.Toleration{tol("t1", exists, "", noExec), tol("t2", exists, "", noExec, 60)}
	q := newFakeQueue()
	_, added := q.process(pod, []v1.Taint{taint("t1", "", noExec), taint("t2", "", noExec)}, tols, t0)
	require.True(t, added)
	assert.Equal(t, t0.Add(time.Minute), q.get(pod).FireAt)

	cancelled, added := q.process(pod, []v1.Taint{taint("t1", "", noExec)}, tols, t0.Add(time.Second))
	assert.True(t, cancelled)
	assert.False(t, added)
	assert.Nil(t, q.get(pod))
	q.advance(t0.Add(time.Hour))
	assert.Empty(t, q.ran)
}

func TestReconcileRunningEviction(t *testing.T) {
	const pod = "ns/p"
	taints := []v1.Taint{taint("t1", "", noExec)}
	q := newFakeQueue()
	q.process(pod, taints, nil, t0) // evict now
	q.advance(t0)
	require.True(t, q.get(pod).Running)

	// A finite toleration arriving while the eviction runs changes nothing (key busy).
	cancelled, added := q.process(pod, taints, []v1.Toleration{tol("t1", exists, "", noExec, 30)}, t0.Add(time.Second))
	assert.False(t, cancelled)
	assert.False(t, added)

	// Untolerated again: upstream cancels (releasing the key) and starts a second eviction.
	cancelled, added = q.process(pod, taints, nil, t0.Add(2*time.Second))
	assert.False(t, cancelled, "a running eviction is not cancelled")
	assert.True(t, added)
}

func TestPropertyReconcileNeverRestartsAClock(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		created := time.Unix(rapid.Int64Range(0, 1000).Draw(t, "created"), 0)
		existing := &Scheduled{CreatedAt: created, FireAt: created.Add(time.Duration(rapid.Int64Range(1, 100).Draw(t, "delay")) * time.Second)}
		now := created.Add(time.Duration(rapid.Int64Range(1, 1000).Draw(t, "elapsed")) * time.Millisecond)
		d := Decision{Kind: EvictAfter, Delay: time.Duration(rapid.Int64Range(0, 1000).Draw(t, "d")) * time.Second}
		if a := Reconcile(d, existing, now); a != (Action{}) {
			t.Fatalf("Reconcile(%v) replaced an eviction scheduled before now: %v", d, a)
		}
	})
}
