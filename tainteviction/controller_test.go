package tainteviction

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/events"
)

// fixture drives a controller as an adapter would, on a clock of its own
// (now): after every handler call and clock step it calls Step, records
// the events, carries out the evictions due (the pod leaves the lister,
// Marking before the first attempt) and reports them with evict's answer.
type fixture struct {
	t       *testing.T
	now     time.Time
	c       *Controller
	pods    map[string][]*v1.Pod // node → pods
	evicted []Eviction
	events  []string
	// evict carries out an attempt; nil deletes the pod and reports Done.
	evict func(e Eviction)
}

func newFixture(t *testing.T, opts Options) *fixture {
	f := &fixture{t: t, now: t0, pods: map[string][]*v1.Pod{}}
	f.c = New(PodListerFunc(func(node string) ([]*v1.Pod, error) { return f.pods[node], nil }), opts)
	return f
}

func (f *fixture) pod(name, node string, tols ...v1.Toleration) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}, Spec: v1.PodSpec{NodeName: node, Tolerations: tols}}
	f.pods[node] = append(f.pods[node], p)
	return p
}

func (f *fixture) record(e events.Event) {
	f.events = append(f.events, fmt.Sprintf("%v %s", f.now.Sub(t0), e.Message))
}

// settle steps the controller at now until nothing more is due.
func (f *fixture) settle() {
	for {
		res := f.c.Step(f.now)
		for _, e := range res.Events {
			f.record(e)
		}
		if !res.Next.IsZero() && !res.Next.After(f.now) && len(res.Evictions) == 0 {
			f.t.Fatalf("Step(%v) handed out nothing with Next %v", f.now, res.Next)
		}
		if len(res.Evictions) == 0 {
			return
		}
		for _, e := range res.Evictions {
			if f.evict != nil {
				f.evict(e)
				continue
			}
			f.record(Marking(e.Pod))
			f.evicted = append(f.evicted, e)
			ps := f.pods[e.Node]
			for i, p := range ps {
				if p.Name == e.Pod.Name {
					f.pods[e.Node] = append(ps[:i:i], ps[i+1:]...)
					break
				}
			}
			f.c.Done(e)
		}
	}
}

func (f *fixture) step(d time.Duration) {
	f.t.Helper()
	f.now = f.now.Add(d)
	f.settle()
}

func (f *fixture) nodeUpdated(old, n *v1.Node) {
	f.t.Helper()
	require.NoError(f.t, f.c.NodeUpdated(f.now, old, n))
	f.settle()
}

func (f *fixture) podUpdated(old, p *v1.Pod) {
	f.c.PodUpdated(f.now, old, p)
	f.settle()
}

func (f *fixture) evictedNames() []string {
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
	f.nodeUpdated(nil, node("n"))
	f.nodeUpdated(node("n"), node("n", taint("t1", "", noExec), taint("t2", "", noExec)))
	assert.Equal(t, []string{"0s none"}, f.evictedNames(), "no toleration: at once")
	f.step(10 * time.Second)
	assert.Equal(t, []string{"0s none", "10s short"}, f.evictedNames())
	// The taint tolerated for 30 s goes; long still tolerates t1 for 60 s,
	// and a finite toleration keeps the schedule (due at 30 s).
	f.nodeUpdated(node("n", taint("t1", "", noExec), taint("t2", "", noExec)), node("n", taint("t1", "", noExec)))
	s, ok := f.c.Scheduled(types.NamespacedName{Namespace: "ns", Name: "long"})
	require.True(t, ok)
	assert.Equal(t, t0.Add(30*time.Second), s.FireAt)
	// All NoExecute taints go: cancelled, with upstream's event.
	f.nodeUpdated(node("n", taint("t1", "", noExec)), node("n", taint("t1", "", v1.TaintEffectNoSchedule)))
	f.step(time.Hour)
	assert.Equal(t, []string{"0s none", "10s short"}, f.evictedNames())
	assert.Equal(t, []string{"0s Marking for deletion Pod ns/none", "10s Marking for deletion Pod ns/short", "10s Cancelling deletion of Pod ns/long"}, f.events)
	_, tainted := f.c.NoExecuteTaints("n")
	assert.False(t, tainted)
}

func TestControllerEvictionDetails(t *testing.T) {
	f := newFixture(t, Options{})
	f.pod("p", "n", tol("t1", exists, "", noExec, 60), tol("t2", exists, "", noExec, 30), tol("t3", exists, "", noExec))
	f.nodeUpdated(nil, node("n", taint("t1", "", noExec), taint("t2", "", noExec), taint("t3", "", noExec)))
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
	f.nodeUpdated(nil, node("n", taint("k", "", noExec)))
	require.Equal(t, 2, f.c.Len())

	require.NoError(t, f.c.PodDeleted(f.now, Tombstone{Key: "ns/p", Obj: p}))
	f.settle()
	assert.Equal(t, 1, f.c.Len(), "a tombstone cancels like a pod")
	assert.Equal(t, []string{"0s Cancelling deletion of Pod ns/p"}, f.events)
	require.NoError(t, f.c.PodDeleted(f.now, &Tombstone{Key: "ns/p", Obj: p}), "nothing left to cancel")

	// A deleted node leaves the table; its pods' evictions still run.
	require.NoError(t, f.c.NodeDeleted(f.now, &Tombstone{Key: "n", Obj: node("n", taint("k", "", noExec))}))
	_, tainted := f.c.NoExecuteTaints("n")
	assert.False(t, tainted)
	f.step(time.Minute)
	assert.Equal(t, []string{"1m0s q"}, f.evictedNames())
	_ = q

	for _, obj := range []any{nil, "ns/p", node("n"), Tombstone{Obj: node("n")}, (*Tombstone)(nil), (*v1.Pod)(nil)} {
		err := f.c.PodDeleted(f.now, obj)
		assert.ErrorIs(t, err, ErrUnexpectedObject, "%T", obj)
	}
	assert.ErrorIs(t, f.c.NodeDeleted(f.now, p), ErrUnexpectedObject)
	assert.ErrorContains(t, f.c.NodeDeleted(f.now, p), "tainteviction: node deletion: got *v1.Pod")
}

func TestControllerListerError(t *testing.T) {
	boom := errors.New("cache not synced")
	c := New(PodListerFunc(func(string) ([]*v1.Pod, error) { return nil, boom }), Options{})
	err := c.NodeAdded(t0, node("n", taint("k", "", noExec)))
	assert.ErrorIs(t, err, ErrListPods)
	assert.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, `tainteviction: pods on node "n"`)
	_, tainted := c.NoExecuteTaints("n")
	assert.True(t, tainted, "the table is updated before the pods are listed, as upstream")
}

// An adapter's policy may veto an eviction (reported Done: the pod stays
// until a later event decides again) or postpone it (reported Postpone:
// due again later, with its CreatedAt, cancellable meanwhile); the
// Marking event belongs to the attempt, so neither records one.
func TestControllerVetoAndPostpone(t *testing.T) {
	f := newFixture(t, Options{})
	var asked []string
	f.evict = func(e Eviction) {
		asked = append(asked, e.Pod.Name)
		switch {
		case e.Pod.Name == "vetoed":
			f.c.Done(e)
		case e.Pod.Name == "postponed" && e.FireAt.Equal(e.CreatedAt):
			f.c.Postpone(e, f.now.Add(time.Minute))
		case e.Pod.Name == "cancelled":
			f.c.Postpone(e, f.now.Add(time.Minute))
		default:
			f.record(Marking(e.Pod))
			f.evicted = append(f.evicted, e)
			f.c.Done(e)
		}
	}
	f.pod("vetoed", "n")
	f.pod("postponed", "n")
	f.pod("allowed", "n")
	cancelled := f.pod("cancelled", "n")
	f.nodeUpdated(nil, node("n", taint("k", "", noExec)))
	assert.Equal(t, []string{"0s allowed"}, f.evictedNames())
	s, ok := f.c.Scheduled(types.NamespacedName{Namespace: "ns", Name: "postponed"})
	require.True(t, ok)
	assert.Equal(t, Scheduled{CreatedAt: t0, FireAt: t0.Add(time.Minute)}, s)
	_, ok = f.c.Scheduled(types.NamespacedName{Namespace: "ns", Name: "vetoed"})
	assert.False(t, ok, "a vetoed eviction is dropped")
	// A postponed eviction is cancelled like any other.
	f.podUpdated(cancelled, nil)
	f.step(time.Minute)
	assert.Equal(t, []string{"0s allowed", "1m0s postponed"}, f.evictedNames())
	assert.Equal(t, []string{"vetoed", "postponed", "allowed", "cancelled", "postponed"}, asked)
	assert.Equal(t, []string{"0s Marking for deletion Pod ns/allowed", "0s Cancelling deletion of Pod ns/cancelled", "1m0s Marking for deletion Pod ns/postponed"}, f.events,
		"no Marking for a vetoed or postponed eviction")
	assert.Zero(t, f.c.Len())
}

// An eviction runs from Step until it is reported: a handler that cancels
// it meanwhile records no event (upstream's running eviction cannot be
// cancelled either), and an eviction decided meanwhile waits behind it, so
// that a pod is never evicted twice at once; it becomes due once the
// running one is reported.
func TestControllerRunningEviction(t *testing.T) {
	f := newFixture(t, Options{})
	var running []Eviction
	f.evict = func(e Eviction) { running = append(running, e) }
	p := f.pod("p", "n", tol("k", exists, "", noExec, 10))
	f.nodeUpdated(nil, node("n", taint("k", "", noExec)))
	f.step(10 * time.Second)
	require.Len(t, running, 1)
	s, ok := f.c.Scheduled(types.NamespacedName{Namespace: "ns", Name: "p"})
	require.True(t, ok)
	assert.True(t, s.Running)
	assert.Equal(t, 1, f.c.Len())

	// The taint goes: the running eviction is released, without an event.
	f.nodeUpdated(node("n", taint("k", "", noExec)), node("n"))
	assert.Empty(t, f.events)
	assert.Zero(t, f.c.Len())
	// It comes back, untolerated: a new eviction, held behind the running one.
	untolerating := p.DeepCopy()
	untolerating.Spec.Tolerations = nil
	f.pods["n"] = []*v1.Pod{untolerating}
	f.nodeUpdated(node("n"), node("n", taint("k", "", noExec)))
	require.Len(t, running, 1, "not handed out while the first one runs")
	assert.Equal(t, 1, f.c.Len())
	f.c.Done(running[0])
	f.settle()
	require.Len(t, running, 2)
	assert.Equal(t, t0.Add(10*time.Second), running[1].FireAt)
	f.c.Done(running[1])
	assert.Zero(t, f.c.Len())
	f.c.Done(running[1]) // a second report changes nothing
	assert.Zero(t, f.c.Len())
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
	want := events.Event{Object: v1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: "ns", Name: "p"},
		Type: v1.EventTypeNormal, Reason: "TaintManagerEviction", Message: "Marking for deletion Pod ns/p"}
	assert.Equal(t, want, Marking(k))
	want.Message = "Cancelling deletion of Pod ns/p"
	assert.Equal(t, want, Cancelling(k))
}
