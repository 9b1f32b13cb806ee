package tainteviction

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	testclock "k8s.io/utils/clock/testing"
)

// fixture is a controller on a fake clock over a map of pods, recording
// its evictions and events.
type fixture struct {
	t       *testing.T
	clk     *testclock.FakeClock
	c       *Controller
	mu      sync.Mutex
	pods    map[string][]*v1.Pod // node → pods
	evicted []Eviction
	events  []string
}

func newFixture(t *testing.T, opts Options) *fixture {
	f := &fixture{t: t, clk: testclock.NewFakeClock(t0), pods: map[string][]*v1.Pod{}}
	opts.Clock = f.clk
	opts.Workers = 1
	opts.Events = func(e Event) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.events = append(f.events, fmt.Sprintf("%v %s", f.clk.Since(t0), e.Message))
	}
	f.c = New(PodListerFunc(func(node string) ([]*v1.Pod, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.pods[node], nil
	}), func(_ context.Context, e Eviction) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.evicted = append(f.evicted, e)
		// Deleted: the lister no longer has it.
		ps := f.pods[e.Node]
		for i, p := range ps {
			if p.Name == e.Pod.Name {
				f.pods[e.Node] = append(ps[:i:i], ps[i+1:]...)
				break
			}
		}
		return nil
	}, opts)
	t.Cleanup(func() { require.NoError(t, f.c.Shutdown(context.Background())) })
	return f
}

func (f *fixture) pod(name, node string, tols ...v1.Toleration) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}, Spec: v1.PodSpec{NodeName: node, Tolerations: tols}}
	f.mu.Lock()
	f.pods[node] = append(f.pods[node], p)
	f.mu.Unlock()
	return p
}

func (f *fixture) step(d time.Duration) {
	f.t.Helper()
	f.clk.Step(d)
	require.NoError(f.t, f.c.Idle(context.Background()))
}

func (f *fixture) evictedNames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, e := range f.evicted {
		out = append(out, fmt.Sprintf("%v %s", e.FireAt.Sub(t0), e.Pod.Name))
	}
	return out
}

func node(name string, ts ...v1.Taint) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeSpec{Taints: ts}}
}

func TestControllerSchedulesAndCancels(t *testing.T) {
	f := newFixture(t, Options{})
	f.pod("short", "n", tol("t1", exists, "", noExec, 10), tol("t2", exists, "", noExec))
	f.pod("long", "n", tol("t1", exists, "", noExec, 60), tol("t2", exists, "", noExec, 30))
	f.pod("forever", "n", tol("", exists, "", ""))
	f.pod("none", "n")
	require.NoError(t, f.c.NodeAdded(node("n")))
	require.NoError(t, f.c.NodeUpdated(node("n"), node("n", taint("t1", "", noExec), taint("t2", "", noExec))))
	f.step(0)
	assert.Equal(t, []string{"0s none"}, f.evictedNames(), "no toleration: at once")
	f.step(10 * time.Second)
	assert.Equal(t, []string{"0s none", "10s short"}, f.evictedNames())
	// The taint tolerated for 30 s goes; long still tolerates t1 for 60 s,
	// and a finite toleration keeps the schedule (due at 30 s).
	require.NoError(t, f.c.NodeUpdated(node("n", taint("t1", "", noExec), taint("t2", "", noExec)), node("n", taint("t1", "", noExec))))
	f.step(0)
	s, ok := f.c.Scheduled(types.NamespacedName{Namespace: "ns", Name: "long"})
	require.True(t, ok)
	assert.Equal(t, t0.Add(30*time.Second), s.FireAt)
	// All NoExecute taints go: cancelled, with upstream's event.
	require.NoError(t, f.c.NodeUpdated(node("n", taint("t1", "", noExec)), node("n", taint("t1", "", v1.TaintEffectNoSchedule))))
	f.step(time.Hour)
	assert.Equal(t, []string{"0s none", "10s short"}, f.evictedNames())
	assert.Equal(t, []string{"0s Marking for deletion Pod ns/none", "10s Marking for deletion Pod ns/short", "10s Cancelling deletion of Pod ns/long"}, f.events)
	_, tainted := f.c.NoExecuteTaints("n")
	assert.False(t, tainted)
}

func TestControllerEvictionDetails(t *testing.T) {
	f := newFixture(t, Options{})
	f.pod("p", "n", tol("t1", exists, "", noExec, 60), tol("t2", exists, "", noExec, 30), tol("t3", exists, "", noExec))
	require.NoError(t, f.c.NodeAdded(node("n", taint("t1", "", noExec), taint("t2", "", noExec), taint("t3", "", noExec))))
	f.step(30 * time.Second)
	require.Len(t, f.evicted, 1)
	assert.Equal(t, Eviction{
		Pod: types.NamespacedName{Namespace: "ns", Name: "p"}, UID: "uid-p", Node: "n",
		CreatedAt: t0, FireAt: t0.Add(30 * time.Second), Taint: taint("t2", "", noExec),
	}, f.evicted[0], "the taint whose toleration ran out first")
}

func TestControllerIgnoredUpdates(t *testing.T) {
	p := &v1.Pod{Spec: v1.PodSpec{NodeName: "n", Tolerations: []v1.Toleration{tol("k", exists, "", noExec, 5)}}}
	relabelled := p.DeepCopy()
	relabelled.Labels = map[string]string{"a": "b"}
	assert.True(t, PodUpdateIgnored(p, relabelled))
	longer := p.DeepCopy()
	longer.Spec.Tolerations[0].TolerationSeconds = secs(6)
	assert.False(t, PodUpdateIgnored(p, longer))
	emptied, nilled := p.DeepCopy(), p.DeepCopy()
	emptied.Spec.Tolerations, nilled.Spec.Tolerations = []v1.Toleration{}, nil
	assert.True(t, PodUpdateIgnored(emptied, nilled), "nil equals empty")
	assert.False(t, PodUpdateIgnored(nil, p), "an add")
	assert.False(t, PodUpdateIgnored(p, nil), "a delete")

	stamped := taint("k", "", noExec)
	stamped.TimeAdded = &metav1.Time{Time: t0}
	assert.True(t, NodeUpdateIgnored(node("n", taint("k", "", noExec)), node("n", taint("k", "", noExec), taint("s", "", v1.TaintEffectNoSchedule))))
	assert.False(t, NodeUpdateIgnored(node("n", taint("k", "", noExec)), node("n", stamped)), "TimeAdded counts")
	assert.False(t, NodeUpdateIgnored(node("n", taint("a", "", noExec), taint("b", "", noExec)), node("n", taint("b", "", noExec), taint("a", "", noExec))), "order counts")
	assert.False(t, NodeUpdateIgnored(nil, node("n")))
}

func TestControllerDeletes(t *testing.T) {
	f := newFixture(t, Options{})
	p := f.pod("p", "n", tol("k", exists, "", noExec, 60))
	q := f.pod("q", "n", tol("k", exists, "", noExec, 60))
	require.NoError(t, f.c.NodeAdded(node("n", taint("k", "", noExec))))
	require.Equal(t, 2, f.c.Len())

	require.NoError(t, f.c.PodDeleted(Tombstone{Key: "ns/p", Obj: p}))
	assert.Equal(t, 1, f.c.Len(), "a tombstone cancels like a pod")
	assert.Equal(t, []string{"0s Cancelling deletion of Pod ns/p"}, f.events)
	require.NoError(t, f.c.PodDeleted(&Tombstone{Key: "ns/p", Obj: p}), "nothing left to cancel")

	// A deleted node leaves the table; its pods' evictions still run.
	require.NoError(t, f.c.NodeDeleted(&Tombstone{Key: "n", Obj: node("n", taint("k", "", noExec))}))
	_, tainted := f.c.NoExecuteTaints("n")
	assert.False(t, tainted)
	f.step(time.Minute)
	assert.Equal(t, []string{"1m0s q"}, f.evictedNames())
	_ = q

	for _, obj := range []any{nil, "ns/p", node("n"), Tombstone{Obj: node("n")}, (*Tombstone)(nil), (*v1.Pod)(nil)} {
		err := f.c.PodDeleted(obj)
		assert.ErrorIs(t, err, ErrUnexpectedObject, "%T", obj)
	}
	assert.ErrorIs(t, f.c.NodeDeleted(p), ErrUnexpectedObject)
	assert.ErrorContains(t, f.c.NodeDeleted(p), "tainteviction: node deletion: got *v1.Pod")
}

func TestControllerListerError(t *testing.T) {
	boom := errors.New("cache not synced")
	c := New(PodListerFunc(func(string) ([]*v1.Pod, error) { return nil, boom }), nil, Options{Clock: testclock.NewFakeClock(t0)})
	defer func() { _ = c.Shutdown(context.Background()) }()
	err := c.NodeAdded(node("n", taint("k", "", noExec)))
	assert.ErrorIs(t, err, ErrListPods)
	assert.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, `tainteviction: pods on node "n"`)
	_, tainted := c.NoExecuteTaints("n")
	assert.True(t, tainted, "the table is updated before the pods are listed, as upstream")
}

func TestControllerPolicy(t *testing.T) {
	var asked []string
	f := newFixture(t, Options{Policy: func(_ context.Context, e Eviction) Verdict {
		asked = append(asked, e.Pod.Name)
		switch e.Pod.Name {
		case "vetoed":
			return Verdict{Veto: true}
		case "postponed":
			if e.FireAt.Equal(e.CreatedAt) {
				return Verdict{Postpone: time.Minute}
			}
		}
		return Verdict{}
	}})
	f.pod("vetoed", "n")
	f.pod("postponed", "n")
	f.pod("allowed", "n")
	require.NoError(t, f.c.NodeAdded(node("n", taint("k", "", noExec))))
	f.step(0)
	assert.Equal(t, []string{"0s allowed"}, f.evictedNames())
	s, ok := f.c.Scheduled(types.NamespacedName{Namespace: "ns", Name: "postponed"})
	require.True(t, ok)
	assert.Equal(t, Scheduled{CreatedAt: t0, FireAt: t0.Add(time.Minute)}, s)
	f.step(time.Minute)
	assert.Equal(t, []string{"0s allowed", "1m0s postponed"}, f.evictedNames())
	assert.Equal(t, []string{"vetoed", "postponed", "allowed", "postponed"}, asked)
	assert.Equal(t, []string{"0s Marking for deletion Pod ns/allowed", "1m0s Marking for deletion Pod ns/postponed"}, f.events, "no event for a vetoed or postponed eviction")
}

func TestControllerShutdownCancelsRunningEviction(t *testing.T) {
	started := make(chan struct{})
	var got error
	c := New(PodListerFunc(func(string) ([]*v1.Pod, error) {
		return []*v1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}, Spec: v1.PodSpec{NodeName: "n"}}}, nil
	}), func(ctx context.Context, _ Eviction) error {
		close(started)
		<-ctx.Done()
		got = ctx.Err()
		return got
	}, Options{Clock: testclock.NewFakeClock(t0)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	require.NoError(t, c.NodeAdded(node("n", taint("k", "", noExec))))
	<-started
	cancel()
	require.NoError(t, <-done)
	assert.ErrorIs(t, got, context.Canceled)
	require.NoError(t, c.NodeAdded(node("m", taint("k", "", noExec))))
	assert.Zero(t, c.Len(), "nothing is scheduled after Shutdown")
}

// TestControllerConcurrentHandlers: informer goroutines call the handlers
// at once (run with -race); every pod ends evicted exactly once.
func TestControllerConcurrentHandlers(t *testing.T) {
	f := newFixture(t, Options{})
	const nodes, pods = 8, 20
	for n := range nodes {
		for i := range pods {
			f.pod(fmt.Sprintf("p%d-%d", n, i), fmt.Sprintf("n%d", n), tol("k", exists, "", noExec, int64(i%3)))
		}
	}
	var wg sync.WaitGroup
	for n := range nodes {
		wg.Go(func() {
			name := fmt.Sprintf("n%d", n)
			assert.NoError(t, f.c.NodeAdded(node(name)))
			assert.NoError(t, f.c.NodeUpdated(node(name), node(name, taint("k", "", noExec))))
			f.mu.Lock()
			ps := f.pods[name]
			f.mu.Unlock()
			for _, p := range ps {
				f.c.PodUpdated(p, p)
			}
		})
	}
	wg.Wait()
	f.step(3 * time.Second)
	seen := map[types.NamespacedName]int{}
	for _, e := range f.evicted {
		seen[e.Pod]++
	}
	assert.Len(t, seen, nodes*pods)
	for k, n := range seen {
		assert.Equal(t, 1, n, k.String())
	}
}

func TestDisruptedStatus(t *testing.T) {
	now := t0.Add(time.Hour)
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Generation: 2}, Status: v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}}}
	before := pod.DeepCopy()
	st, changed := DisruptedStatus(pod, now)
	assert.True(t, changed)
	assert.Equal(t, before, pod, "the pod is not modified")
	require.Len(t, st.Conditions, 2)
	want := v1.PodCondition{Type: v1.DisruptionTarget, ObservedGeneration: 2, Status: v1.ConditionTrue,
		Reason: ConditionReason, Message: ConditionMessage, LastTransitionTime: metav1.NewTime(now)}
	assert.Equal(t, want, st.Conditions[1])

	// Already marked: nothing to patch, and the transition time is kept;
	// a new generation alone is not a change (upstream's rule).
	marked := pod.DeepCopy()
	marked.Status = st
	marked.Generation = 3
	st2, changed := DisruptedStatus(marked, now.Add(time.Minute))
	assert.False(t, changed)
	assert.Equal(t, metav1.NewTime(now), st2.Conditions[1].LastTransitionTime)
	assert.EqualValues(t, 3, st2.Conditions[1].ObservedGeneration)

	// A False condition turns True with a new time.
	off := pod.DeepCopy()
	off.Status.Conditions = append(off.Status.Conditions, v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionFalse})
	st3, changed := DisruptedStatus(off, now)
	assert.True(t, changed)
	assert.Equal(t, want, st3.Conditions[1])

	st4, changed := DisruptedStatus(nil, now)
	assert.True(t, changed)
	assert.Len(t, st4.Conditions, 1)
}

func TestEvents(t *testing.T) {
	k := types.NamespacedName{Namespace: "ns", Name: "p"}
	want := Event{Object: v1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: "ns", Name: "p"},
		Type: v1.EventTypeNormal, Reason: "TaintManagerEviction", Message: "Marking for deletion Pod ns/p"}
	assert.Equal(t, want, Marking(k))
	want.Message = "Cancelling deletion of Pod ns/p"
	assert.Equal(t, want, Cancelling(k))
}
