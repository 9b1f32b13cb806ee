package pressureevictor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/evictkit/eviction/thresholds"
)

var hardMemory = thresholds.Flags{Hard: []string{"memory.available<500Mi"}}

// An eviction the API server applied but whose answer was lost (a 504 from a
// proxy or from the server's own timeout, a 500 after the write, the client's
// deadline) counts as made: the pod is terminating and holds the next
// eviction back as a successful one does.
func TestLostAnswerHoldsTheNextEviction(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"504", apierrors.NewTimeoutError("request did not complete within the allowed duration", 0)},
		{"500", apierrors.NewInternalError(errors.New("connection reset after the write"))},
		{"client deadline", fmt.Errorf("Post \"https://api/...\": %w", context.DeadlineExceeded)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, hardMemory, false, nodePods...)
			fx.keep = true
			fx.available = 300
			fx.lost["burst"] = tc.err

			r := fx.cycle(0)
			assert.Equal(t, OutcomeEvicted, r.outcome, "the pod is terminating: the eviction was made")
			for range 5 {
				assert.Equal(t, OutcomeWaiting, fx.cycle(10*time.Second).outcome, "burst is still terminating")
			}
			assert.Equal(t, []string{"burst"}, fx.evictions, "one pod evicted, not two")
			assert.Len(t, fx.posts, 1)
		})
	}
}

// An eviction whose outcome is unknown and that the API server does not show
// (yet) holds the next one back for the pod's grace period and cleanup, as a
// made one would: it may still be applied.
func TestUnknownOutcomeHoldsForTheGracePeriod(t *testing.T) {
	fx := newFixture(t, hardMemory, false, nodePods...)
	fx.available = 300
	fx.refused["burst"] = apierrors.NewTimeoutError("request did not complete within the allowed duration", 0)

	assert.Equal(t, OutcomeFailed, fx.cycle(0).outcome)
	assert.Equal(t, OutcomeWaiting, fx.cycle(60*time.Second).outcome, "30 s of grace and 30 s of cleanup")
	delete(fx.refused, "burst")
	fx.cycle(time.Second)
	assert.Equal(t, []string{"burst"}, fx.evictions, "burst is tried again once the wait is over")
	assert.Len(t, fx.posts, 2)
}

// A pod of the node already terminating (deleted by someone else, or by an
// evictor that restarted since) holds the next eviction back: its memory is
// not free yet.
func TestTerminatingPodOnTheNodeHoldsTheNextEviction(t *testing.T) {
	deleting := func(p *v1.Pod) {
		ts := metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 30, 0, time.UTC))
		grace := int64(30)
		p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &ts, &grace
	}
	pods := append([]testPod{{name: "leaving", usage: 700, mutate: deleting}}, nodePods...)
	fx := newFixture(t, hardMemory, false, pods...)
	fx.available = 300

	assert.Equal(t, OutcomeWaiting, fx.cycle(0).outcome)
	assert.Equal(t, OutcomeWaiting, fx.cycle(60*time.Second).outcome, "30 s of grace and 30 s of cleanup")
	assert.Empty(t, fx.evictions)
	fx.cycle(time.Second)
	assert.Equal(t, []string{"burst"}, fx.evictions, "leaving is stuck: the next pod goes")
}

// A refusal other than 429 (a 500 for a pod under two budgets, a 403 from an
// admission webhook, a 422) moves on to the next pod, with a Warning event on
// the refused pod and a metric; it does not block the node.
func TestAnyRefusalMovesToTheNextPod(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		code string
	}{
		{"two budgets", apierrors.NewInternalError(errors.New("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.")), "500"},
		{"webhook", apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "burst", errors.New(`admission webhook "deny.example.com" denied the request`)), "403"},
		{"invalid", apierrors.NewInvalid(schema.GroupKind{Kind: "Eviction", Group: "policy"}, "burst", nil), "422"},
		{"unavailable", apierrors.NewServiceUnavailable("etcd leader changed"), "503"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, hardMemory, false, nodePods...)
			fx.refused["burst"] = tc.err
			fx.available = 300

			r := fx.cycle(0)
			assert.Equal(t, OutcomeEvicted, r.outcome)
			assert.Equal(t, []string{"best"}, fx.evictions, "burst refused, best goes")
			require.Len(t, r.refused, 1)
			assert.Equal(t, "burst", r.refused[0].Name)
			fx.cycle(10 * time.Second)
			assert.Equal(t, []string{"best", "steady"}, fx.evictions)

			events := fx.events()
			require.Len(t, events, 4)
			assert.True(t, strings.HasPrefix(events[0], "Warning "+ReasonEvictionFailed+" "), events[0])
			assert.Contains(t, events[0], "Eviction failed: ")
			assert.Equal(t, 2.0, testutil.ToFloat64(fx.metrics.failures.WithLabelValues(tc.code)))
		})
	}
}

// Thirty cycles with a first-ranked pod that is always refused with 500 evict
// every other pod that may go.
func TestOneBadPodDoesNotBlockTheNode(t *testing.T) {
	fx := newFixture(t, hardMemory, false, nodePods...)
	fx.refused["burst"] = apierrors.NewInternalError(errors.New("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."))
	fx.available = 300
	for range 30 {
		fx.cycle(10 * time.Second)
	}
	assert.Equal(t, []string{"best", "steady"}, fx.evictions)
}

// A pod whose config.source annotation says "file" is an ordinary pod of the
// API server: it is evicted in its turn. A pod with the mirror annotation but
// not controlled by its Node is too.
func TestForgedStaticOrMirrorPodIsNotImmune(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*v1.Pod)
	}{
		{"config.source file", func(p *v1.Pod) { p.Annotations = map[string]string{"kubernetes.io/config.source": "file"} }},
		{"mirror annotation alone", func(p *v1.Pod) { p.Annotations = map[string]string{v1.MirrorPodAnnotationKey: "x"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods := append([]testPod{{name: "forged", usage: 900, mutate: tc.mutate}}, nodePods...)
			fx := newFixture(t, hardMemory, false, pods...)
			fx.available = 300
			fx.cycle(0)
			assert.Equal(t, []string{"forged"}, fx.evictions)
		})
	}
}

// A pod whose grace period is longer than the cap holds the next eviction
// back for the cap and the cleanup wait only; a grace period of 2^62 s does
// not overflow into "go at once".
func TestGracePeriodIsCapped(t *testing.T) {
	for _, tc := range []struct {
		name  string
		grace int64
	}{
		{"ten years", 10 * 365 * 24 * 3600},
		{"beyond time.Duration", 1 << 62},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slow := func(p *v1.Pod) { p.Spec.TerminationGracePeriodSeconds = &tc.grace }
			pods := append([]testPod{{name: "slow", usage: 900, mutate: slow}}, nodePods...)
			fx := newFixture(t, hardMemory, false, pods...)
			fx.keep = true
			fx.available = 300

			fx.cycle(0)
			require.Equal(t, []string{"slow"}, fx.evictions)
			assert.Equal(t, OutcomeWaiting, fx.cycle(10*time.Second).outcome, "slow is terminating")
			assert.Equal(t, OutcomeWaiting, fx.cycle(320*time.Second-10*time.Second).outcome, "the default cap of 300 s and 30 s of cleanup")
			fx.cycle(11 * time.Second)
			assert.Equal(t, []string{"slow", "burst"}, fx.evictions, "slow is past the cap: the next pod goes")
		})
	}
}

// A summary answered for another node is not acted on.
func TestSummaryOfAnotherNodeIsRejected(t *testing.T) {
	fx := newFixture(t, hardMemory, false, nodePods...)
	fx.available = 300
	fx.summary = func() ([]byte, error) {
		data, err := fx.readGenerated()
		return []byte(strings.Replace(string(data), `"nodeName":"`+node+`"`, `"nodeName":"node-2"`, 1)), err
	}
	assert.Equal(t, OutcomeSkipped, fx.cycle(0).outcome)
	assert.Empty(t, fx.client.Actions(), "nothing evicted")
	events := fx.events()
	require.Len(t, events, 1)
	assert.Contains(t, events[0], `summary of node "node-2", not "node-1"`)
}

// The Eviction of a pod whose grace period is longer than the cap asks for
// the cap; a shorter one asks for nothing (the pod's own applies); a cap of
// 0 asks for 1 s, since 0 would be a forced deletion; a negative cap defers
// to the pod and its wait saturates.
func TestEvictionAsksForTheCappedGracePeriod(t *testing.T) {
	ptr := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name      string
		limit     *int64
		grace     int64
		want      *int64
		wantWait  time.Duration
		wantGrace bool
	}{
		{"default cap, longer", nil, 3600, ptr(300), 330 * time.Second, true},
		{"default cap, shorter", nil, 60, nil, 90 * time.Second, false},
		{"cap 0", ptr(0), 60, ptr(1), 31 * time.Second, true},
		{"negative cap defers", ptr(-1), 1 << 62, nil, time.Duration(1<<63 - 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, hardMemory, false, testPod{name: "slow", usage: 900, mutate: func(p *v1.Pod) {
				p.Spec.TerminationGracePeriodSeconds = &tc.grace
			}})
			fx.evictor.cfg.MaxPodGracePeriodSeconds = tc.limit
			if tc.limit == nil {
				fx.evictor.cfg.MaxPodGracePeriodSeconds = ptr(DefaultMaxPodGracePeriodSeconds)
			}
			fx.available = 300
			fx.cycle(0)
			require.Len(t, fx.posts, 1)
			assert.Equal(t, tc.want, fx.posts[0].DeleteOptions.GracePeriodSeconds)
			assert.Equal(t, tc.wantWait, fx.evictor.wait(tc.grace))
		})
	}
}

// The evictor never asks to evict a pod bound to another node, even if one
// reached its ranking.
func TestPodOfAnotherNodeIsNeverEvicted(t *testing.T) {
	fx := newFixture(t, hardMemory, false)
	other := testPod{name: "elsewhere", mutate: func(p *v1.Pod) { p.Spec.NodeName = "node-2" }}.pod()
	out, err := fx.evictor.evict(context.Background(), other)
	assert.Equal(t, evictRefused, out)
	assert.ErrorContains(t, err, `pod default/elsewhere is bound to node "node-2", not "node-1": not evicted`)
	assert.Empty(t, fx.client.Actions())
}
