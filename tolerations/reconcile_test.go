package tolerations

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
)

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

// fakeQueue follows the timedqueue contract (T2, T6): Add refuses a taken key; Cancel removes
// a pending item (true) or releases a running one (false).
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

var _ Queue[string] = (*fakeQueue)(nil)

// process is processPodOnNode on the fake queue.
func (q *fakeQueue) process(key string, taints []v1.Taint, tols []v1.Toleration, now time.Time) (cancelled, added bool) {
	d := NoExecuteDecision(taints, tols, Options{})
	return ApplyAction[string](q, key, Reconcile(d, q.get(key), now))
}

func TestReconcileScheduledEvictionIsKept(t *testing.T) {
	// Spec case 23 (upstream test "lengthening toleration shouldn't work").
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
	// Spec case 24.
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
