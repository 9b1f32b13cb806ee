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

	"github.com/evictkit/eviction/timedqueue"
)

// retryFixture is a controller on a fake clock whose evictions fail while
// fail says so, recording every attempt, event and final error.
type retryFixture struct {
	t   *testing.T
	clk *testclock.FakeClock
	c   *Controller

	mu       sync.Mutex
	fail     func(e Eviction) error // nil: the attempt succeeds
	attempts []string               // "<clock> <pod> #<Attempts>"
	events   []string
	final    []string // OnError: "<pod> #<Attempts>: <err>"
}

var errDown = errors.New("api server down")

func newRetryFixture(t *testing.T, retry timedqueue.Retry, fail func(e Eviction) error, pods ...*v1.Pod) *retryFixture {
	f := &retryFixture{t: t, clk: testclock.NewFakeClock(t0), fail: fail}
	f.c = New(PodListerFunc(func(string) ([]*v1.Pod, error) { return pods, nil }),
		func(_ context.Context, e Eviction) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.attempts = append(f.attempts, fmt.Sprintf("%v %s #%d", f.clk.Since(t0), e.Pod.Name, e.Attempts))
			if f.fail == nil {
				return nil
			}
			return f.fail(e)
		}, Options{
			Clock: f.clk, Workers: 1, Retry: retry,
			Events: func(e Event) {
				f.mu.Lock()
				defer f.mu.Unlock()
				f.events = append(f.events, fmt.Sprintf("%v %s", f.clk.Since(t0), e.Message))
			},
			OnError: func(e Eviction, err error) {
				f.mu.Lock()
				defer f.mu.Unlock()
				f.final = append(f.final, fmt.Sprintf("%s #%d: %v", e.Pod.Name, e.Attempts, err))
			},
		})
	t.Cleanup(func() { require.NoError(t, f.c.Shutdown(context.Background())) })
	return f
}

func (f *retryFixture) step(d time.Duration) {
	f.t.Helper()
	f.clk.Step(d)
	require.NoError(f.t, f.c.Idle(context.Background()))
}

func (f *retryFixture) setFail(fail func(e Eviction) error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = fail
}

func (f *retryFixture) record() (attempts, events, final []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.attempts...), append([]string(nil), f.events...), append([]string(nil), f.final...)
}

func plainPod(name string, tols ...v1.Toleration) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}, Spec: v1.PodSpec{NodeName: "n", Tolerations: tols}}
}

var backoff = timedqueue.Retry{MaxAttempts: -1, Initial: time.Second, Max: 4 * time.Second}

// A failed eviction is due again after the backoff, as a queue item: each
// attempt sees the failures before it, the Marking event comes once, and
// OnError is not called for an eviction that finally succeeds.
func TestRetryBackoff(t *testing.T) {
	f := newRetryFixture(t, backoff, func(Eviction) error { return errDown }, plainPod("p"))
	require.NoError(t, f.c.NodeAdded(node("n", taint("t", "", noExec))))
	f.step(0)
	for range 5 {
		f.step(time.Second)
	}
	// Waiting for a retry, the eviction is pending, not running.
	s, ok := f.c.Scheduled(types.NamespacedName{Namespace: "ns", Name: "p"})
	require.True(t, ok)
	assert.False(t, s.Running)
	assert.Equal(t, t0, s.FireAt, "a retry keeps the eviction's FireAt")
	f.setFail(nil)
	for range 5 {
		f.step(time.Second)
	}
	attempts, events, final := f.record()
	// Waits of 1 s, 2 s, 4 s, 4 s.
	assert.Equal(t, []string{"0s p #0", "1s p #1", "3s p #2", "7s p #3"}, attempts)
	assert.Equal(t, []string{"0s Marking for deletion Pod ns/p"}, events)
	assert.Empty(t, final)
	assert.Zero(t, f.c.Len())
}

// The point of retrying as a queue item: the taint goes while a retry
// waits, and the retry is cancelled (with upstream's event) like any
// scheduled eviction; however far the clock then goes, no attempt follows.
func TestRetryCancelledByTaintRemoval(t *testing.T) {
	f := newRetryFixture(t, backoff, func(Eviction) error { return errDown }, plainPod("p"))
	tainted := node("n", taint("t", "", noExec))
	require.NoError(t, f.c.NodeAdded(tainted))
	f.step(0)
	f.step(time.Second)
	require.NoError(t, f.c.NodeUpdated(tainted, node("n")))
	f.setFail(nil)
	for range 10 {
		f.step(time.Hour)
	}
	attempts, events, final := f.record()
	assert.Equal(t, []string{"0s p #0", "1s p #1"}, attempts)
	assert.Equal(t, []string{"0s Marking for deletion Pod ns/p", "1s Cancelling deletion of Pod ns/p"}, events)
	assert.Empty(t, final)
	assert.Zero(t, f.c.Len())
}

// A toleration change cancels a waiting retry too: the pod now tolerates
// the taint forever.
func TestRetryCancelledByToleration(t *testing.T) {
	p := plainPod("p")
	f := newRetryFixture(t, backoff, func(Eviction) error { return errDown }, p)
	require.NoError(t, f.c.NodeAdded(node("n", taint("t", "", noExec))))
	f.step(0)
	tolerant := p.DeepCopy()
	tolerant.Spec.Tolerations = []v1.Toleration{tol("t", exists, "", noExec)}
	f.c.PodUpdated(p, tolerant)
	f.setFail(nil)
	f.step(time.Hour)
	attempts, _, _ := f.record()
	assert.Equal(t, []string{"0s p #0"}, attempts)
	assert.Zero(t, f.c.Len())
}

// An error wrapping ErrPermanent ends the eviction at once, retries
// notwithstanding, and goes to OnError; MaxAttempts bounds the others.
func TestRetryGivesUp(t *testing.T) {
	f := newRetryFixture(t, timedqueue.Retry{MaxAttempts: 3, Initial: time.Second}, func(e Eviction) error {
		if e.Pod.Name == "forbidden" && e.Attempts == 1 {
			return fmt.Errorf("webhook says no: %w", ErrPermanent)
		}
		return errDown
	}, plainPod("forbidden"), plainPod("down"))
	require.NoError(t, f.c.NodeAdded(node("n", taint("t", "", noExec))))
	f.step(0)
	for range 10 {
		f.step(time.Second)
	}
	attempts, _, final := f.record()
	assert.Equal(t, []string{"0s forbidden #0", "0s down #0", "1s forbidden #1", "1s down #1", "3s down #2"}, attempts)
	assert.Equal(t, []string{"forbidden #1: webhook says no: " + ErrPermanent.Error(), "down #2: " + errDown.Error()}, final)
	assert.Zero(t, f.c.Len())
}

// Without Retry an eviction is attempted once, as upstream's queue does.
func TestRetryOff(t *testing.T) {
	f := newRetryFixture(t, timedqueue.Retry{}, func(Eviction) error { return errDown }, plainPod("p"))
	require.NoError(t, f.c.NodeAdded(node("n", taint("t", "", noExec))))
	f.step(0)
	f.step(time.Hour)
	attempts, _, final := f.record()
	assert.Equal(t, []string{"0s p #0"}, attempts)
	assert.Equal(t, []string{"p #0: " + errDown.Error()}, final)
}
