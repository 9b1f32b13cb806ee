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

	"github.com/evictkit/eviction/timedqueue"
)

// retryFixture drives a controller whose evictions fail while fail says
// so, as an adapter would: each failure goes to Failed at now, recording
// every attempt, event and final error.
type retryFixture struct {
	*fixture
	fail     func(e Eviction) error // nil: the attempt succeeds
	attempts []string               // "<clock> <pod> #<Attempts>"
	final    []string               // what Failed returned: "<pod> #<Attempts>: <err>"
}

var errDown = errors.New("api server down")

func newRetryFixture(t *testing.T, retry timedqueue.Retry, fail func(e Eviction) error, pods ...*v1.Pod) *retryFixture {
	f := &retryFixture{fixture: newFixture(t, Options{Retry: retry}), fail: fail}
	f.pods["n"] = pods
	f.evict = func(e Eviction) {
		f.attempts = append(f.attempts, fmt.Sprintf("%v %s #%d", f.now.Sub(t0), e.Pod.Name, e.Attempts))
		if e.Attempts == 0 {
			f.record(Marking(e.Pod))
		}
		if f.fail == nil {
			f.c.Done(e)
			return
		}
		if _, err := f.c.Failed(f.now, e, f.fail(e)); err != nil {
			f.final = append(f.final, fmt.Sprintf("%s #%d: %v", e.Pod.Name, e.Attempts, err))
		}
	}
	return f
}

func plainPod(name string, tols ...v1.Toleration) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}, Spec: v1.PodSpec{NodeName: "n", Tolerations: tols}}
}

var backoff = timedqueue.Retry{MaxAttempts: -1, Initial: time.Second, Max: 4 * time.Second}

// A failed eviction is due again after the backoff, as a queue item: each
// attempt sees the failures before it, the Marking event comes once, and
// Failed returns no error for an eviction that finally succeeds.
func TestRetryBackoff(t *testing.T) {
	f := newRetryFixture(t, backoff, func(Eviction) error { return errDown }, plainPod("p"))
	f.nodeUpdated(nil, node("n", taint("t", "", noExec)))
	for range 5 {
		f.step(time.Second)
	}
	// Waiting for a retry, the eviction is pending, not running.
	s, ok := f.c.Scheduled(types.NamespacedName{Namespace: "ns", Name: "p"})
	require.True(t, ok)
	assert.False(t, s.Running)
	assert.Equal(t, t0, s.FireAt, "a retry keeps the eviction's FireAt")
	f.fail = nil
	for range 5 {
		f.step(time.Second)
	}
	attempts, events, final := f.attempts, f.events, f.final
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
	f.nodeUpdated(nil, tainted)
	f.step(time.Second)
	f.nodeUpdated(tainted, node("n"))
	f.fail = nil
	for range 10 {
		f.step(time.Hour)
	}
	attempts, events, final := f.attempts, f.events, f.final
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
	f.nodeUpdated(nil, node("n", taint("t", "", noExec)))
	tolerant := p.DeepCopy()
	tolerant.Spec.Tolerations = []v1.Toleration{tol("t", exists, "", noExec)}
	f.podUpdated(p, tolerant)
	f.fail = nil
	f.step(time.Hour)
	attempts := f.attempts
	assert.Equal(t, []string{"0s p #0"}, attempts)
	assert.Zero(t, f.c.Len())
}

// An error wrapping ErrPermanent ends the eviction at once, retries
// notwithstanding, and Failed returns it; MaxAttempts bounds the others.
func TestRetryGivesUp(t *testing.T) {
	f := newRetryFixture(t, timedqueue.Retry{MaxAttempts: 3, Initial: time.Second}, func(e Eviction) error {
		if e.Pod.Name == "forbidden" && e.Attempts == 1 {
			return fmt.Errorf("webhook says no: %w", ErrPermanent)
		}
		return errDown
	}, plainPod("forbidden"), plainPod("down"))
	f.nodeUpdated(nil, node("n", taint("t", "", noExec)))
	for range 10 {
		f.step(time.Second)
	}
	attempts, final := f.attempts, f.final
	assert.Equal(t, []string{"0s forbidden #0", "0s down #0", "1s forbidden #1", "1s down #1", "3s down #2"}, attempts)
	assert.Equal(t, []string{"forbidden #1: webhook says no: " + ErrPermanent.Error(), "down #2: " + errDown.Error()}, final)
	assert.Zero(t, f.c.Len())
}

// Without Retry an eviction is attempted once, as upstream's queue does.
func TestRetryOff(t *testing.T) {
	f := newRetryFixture(t, timedqueue.Retry{}, func(Eviction) error { return errDown }, plainPod("p"))
	f.nodeUpdated(nil, node("n", taint("t", "", noExec)))
	f.step(time.Hour)
	attempts, final := f.attempts, f.final
	assert.Equal(t, []string{"0s p #0"}, attempts)
	assert.Equal(t, []string{"p #0: " + errDown.Error()}, final)
}
