package pressureevictor

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/thresholds"
)

const (
	node = "node-1"
	mi   = int64(1 << 20)
)

// testPod is a pod on the node with a memory working set of usage MiB and,
// if request > 0, a memory request of request MiB.
type testPod struct {
	name           string
	usage, request int64
	mutate         func(*v1.Pod)
}

func (p testPod) pod() *v1.Pod {
	c := v1.Container{Name: "app"}
	if p.request > 0 {
		c.Resources.Requests = v1.ResourceList{v1.ResourceMemory: *resource.NewQuantity(p.request*mi, resource.BinarySI)}
	}
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: p.name, UID: types.UID("uid-" + p.name)},
		Spec:       v1.PodSpec{NodeName: node, Containers: []v1.Container{c}},
		Status:     v1.PodStatus{Phase: v1.PodRunning},
	}
	if p.mutate != nil {
		p.mutate(pod)
	}
	return pod
}

// fixture is an evictor over a fake clientset, a fake clock and a summary the
// test sets before each cycle.
type fixture struct {
	t        *testing.T
	clock    *clocktesting.FakeClock
	client   *fake.Clientset
	indexer  cache.Indexer
	recorder *record.FakeRecorder
	metrics  *Metrics
	reg      *prometheus.Registry
	evictor  *Evictor
	pods     map[string]testPod
	// available is node memory.available in MiB for the next summary;
	// summary, if set, replaces the generated one.
	available int64
	summary   func() ([]byte, error)
	// protected pods are refused with 429; evicted ones are removed from the
	// lister unless keep is set (they stay, terminating).
	protected map[string]bool
	keep      bool
	evictions []string
	// refused pods are answered with their error, the eviction not applied;
	// lost ones are evicted, then answered with their error (the answer lost).
	refused map[string]error
	lost    map[string]error
	// posts are the eviction requests made, in order, however answered.
	posts []*policyv1.Eviction
}

func newFixture(t *testing.T, f thresholds.Flags, dryRun bool, pods ...testPod) *fixture {
	t.Helper()
	fx := &fixture{
		t:         t,
		clock:     clocktesting.NewFakeClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)),
		client:    fake.NewClientset(),
		indexer:   cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		recorder:  record.NewFakeRecorder(100),
		reg:       prometheus.NewRegistry(),
		pods:      map[string]testPod{},
		protected: map[string]bool{},
		refused:   map[string]error{},
		lost:      map[string]error{},
	}
	for _, p := range pods {
		fx.pods[p.name] = p
		require.NoError(t, fx.indexer.Add(p.pod()))
	}
	fx.client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		ev := a.(k8stesting.CreateAction).GetObject().(*policyv1.Eviction)
		fx.posts = append(fx.posts, ev)
		if fx.protected[ev.Name] {
			return true, nil, apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
		}
		if err := fx.refused[ev.Name]; err != nil {
			return true, nil, err
		}
		fx.evictions = append(fx.evictions, ev.Name)
		obj, ok, _ := fx.indexer.GetByKey(ev.Namespace + "/" + ev.Name)
		if ok {
			if fx.keep {
				pod := obj.(*v1.Pod).DeepCopy()
				now := metav1.NewTime(fx.clock.Now())
				pod.DeletionTimestamp = &now
				_ = fx.indexer.Update(pod)
			} else {
				_ = fx.indexer.Delete(obj)
			}
		}
		return true, nil, fx.lost[ev.Name]
	})
	// The API server's copy of a pod is the lister's.
	fx.client.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		g := a.(k8stesting.GetAction)
		obj, ok, _ := fx.indexer.GetByKey(g.GetNamespace() + "/" + g.GetName())
		if !ok {
			return true, nil, apierrors.NewNotFound(v1.Resource("pods"), g.GetName())
		}
		return true, obj.(*v1.Pod).DeepCopy(), nil
	})
	var err error
	fx.metrics, err = NewMetrics(fx.reg)
	require.NoError(t, err)
	ts, err := ParseThresholds(f)
	require.NoError(t, err)
	fx.evictor, err = New(Config{
		Client:     fx.client,
		Node:       node,
		Pods:       corelisters.NewPodLister(fx.indexer),
		Source:     SummaryFunc(func(context.Context) ([]byte, error) { return fx.read() }),
		Thresholds: ts,
		DryRun:     dryRun,
		Recorder:   fx.recorder,
		Metrics:    fx.metrics,
		Clock:      fx.clock,
	})
	require.NoError(t, err)
	return fx
}

// read returns the summary: node memory.available of fx.available MiB out of
// 8 GiB, the pods still listed with their usage, stamped with the clock's
// time so that every cycle's statistics are fresh.
func (fx *fixture) read() ([]byte, error) {
	if fx.summary != nil {
		return fx.summary()
	}
	return fx.readGenerated()
}

// readGenerated returns the generated summary, as read does without
// fx.summary.
func (fx *fixture) readGenerated() ([]byte, error) {
	ts := fx.clock.Now().Format(time.RFC3339)
	var pods []string
	for _, obj := range fx.indexer.List() {
		pod := obj.(*v1.Pod)
		p := fx.pods[pod.Name]
		pods = append(pods, fmt.Sprintf(`{"podRef":{"name":%q,"namespace":%q,"uid":%q},"memory":{"time":%q,"workingSetBytes":%d},"containers":[{"name":"app","memory":{"time":%q,"workingSetBytes":%d}}]}`,
			pod.Name, pod.Namespace, pod.UID, ts, p.usage*mi, ts, p.usage*mi))
	}
	return fmt.Appendf(nil, `{"node":{"nodeName":%q,"memory":{"time":%q,"availableBytes":%d,"workingSetBytes":%d}},"pods":[%s]}`,
		node, ts, fx.available*mi, 8192*mi-fx.available*mi, strings.Join(pods, ",")), nil
}

// cycle advances the clock by d and runs one cycle.
func (fx *fixture) cycle(d time.Duration) report {
	fx.clock.Step(d)
	return fx.evictor.cycle(context.Background())
}

func (fx *fixture) events() []string {
	var out []string
	for {
		select {
		case e := <-fx.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func (fx *fixture) cycles(outcome string) float64 {
	return testutil.ToFloat64(fx.metrics.cycles.WithLabelValues(outcome))
}

// The pods of a node under memory pressure, in the kubelet's order: those
// using more than they request first (burst, then best), then by usage over
// request (steady is within its request and goes last). The critical and
// mirror pods use the most and are never chosen.
var nodePods = []testPod{
	{name: "steady", usage: 200, request: 500},
	{name: "best", usage: 300},
	{name: "burst", usage: 600, request: 100},
	{name: "critical", usage: 2000, mutate: func(p *v1.Pod) {
		prio := int32(2000001000)
		p.Namespace, p.Spec.Priority, p.Spec.PriorityClassName = "kube-system", &prio, "system-node-critical"
	}},
	{name: "mirror", usage: 1500, mutate: func(p *v1.Pod) {
		// As the kubelet creates it: controlled by its Node.
		p.Annotations = map[string]string{v1.MirrorPodAnnotationKey: "hash", "kubernetes.io/config.source": "file"}
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node, UID: "node-uid", Controller: &yes}}
	}},
}

var softMemory = thresholds.Flags{
	Soft:            []string{"memory.available<500Mi"},
	SoftGracePeriod: []string{"memory.available=30s"},
}

func TestRisingPressureEvictsInKubeletOrderOnePerCycle(t *testing.T) {
	fx := newFixture(t, softMemory, false, nodePods...)

	fx.available = 450
	assert.Equal(t, OutcomeNone, fx.cycle(0).outcome, "met, but inside the grace period")
	fx.available = 400
	assert.Equal(t, OutcomeNone, fx.cycle(20*time.Second).outcome, "still inside the grace period")
	assert.Empty(t, fx.evictions)

	fx.available = 300
	r := fx.cycle(15 * time.Second)
	assert.Equal(t, OutcomeEvicted, r.outcome)
	assert.Equal(t, []string{"burst"}, fx.evictions)

	fx.available = 420
	fx.cycle(10 * time.Second)
	assert.Equal(t, []string{"burst", "best"}, fx.evictions)

	fx.available = 480
	fx.cycle(10 * time.Second)
	assert.Equal(t, []string{"burst", "best", "steady"}, fx.evictions)

	// Only critical and mirror pods are left: they are never touched.
	fx.available = 300
	assert.Equal(t, OutcomeRefused, fx.cycle(10*time.Second).outcome)
	fx.available = 900
	assert.Equal(t, OutcomeNone, fx.cycle(10*time.Second).outcome, "the threshold cleared")
	assert.Equal(t, []string{"burst", "best", "steady"}, fx.evictions)

	events := fx.events()
	require.Len(t, events, 3)
	assert.True(t, strings.HasPrefix(events[0], "Warning Evicted The node was low on resource: memory. Threshold quantity: 500Mi, available: "), events[0])
	assert.Contains(t, events[0], "Container app was using 600Mi, request is 100Mi")
	assert.Equal(t, 3.0, testutil.ToFloat64(fx.metrics.evictions.WithLabelValues("memory.available")))
	assert.Equal(t, 3.0, fx.cycles(OutcomeEvicted))
	assert.Equal(t, float64(900*mi), testutil.ToFloat64(fx.metrics.observed.WithLabelValues("memory.available")))
}

func TestRefusedEvictionMovesToTheNextPod(t *testing.T) {
	fx := newFixture(t, thresholds.Flags{Hard: []string{"memory.available<500Mi"}}, false, nodePods...)
	fx.protected["burst"] = true
	fx.available = 300

	r := fx.cycle(0)
	assert.Equal(t, OutcomeEvicted, r.outcome)
	assert.Equal(t, []string{"best"}, fx.evictions, "burst ranks first but its budget allows no disruption")
	require.Len(t, r.refused, 1)
	assert.Equal(t, "burst", r.refused[0].Name)
	assert.Equal(t, 1.0, testutil.ToFloat64(fx.metrics.refusals))

	// The event is on the pod evicted, with its own message.
	events := fx.events()
	require.Len(t, events, 1)
	assert.Contains(t, events[0], "Container app was using 300Mi, request is 0")
}

func TestEveryCandidateRefusedWaitsForTheNextCycle(t *testing.T) {
	fx := newFixture(t, thresholds.Flags{Hard: []string{"memory.available<500Mi"}}, false, nodePods...)
	fx.protected["burst"], fx.protected["best"], fx.protected["steady"] = true, true, true
	fx.available = 300

	r := fx.cycle(0)
	assert.Equal(t, OutcomeRefused, r.outcome)
	assert.Len(t, r.refused, 3)
	assert.Empty(t, fx.evictions)

	delete(fx.protected, "best")
	fx.cycle(10 * time.Second)
	assert.Equal(t, []string{"best"}, fx.evictions, "the budget allows it now")
}

func TestTerminatingPodHoldsTheNextEviction(t *testing.T) {
	fx := newFixture(t, thresholds.Flags{Hard: []string{"memory.available<500Mi"}}, false, nodePods...)
	fx.keep = true
	fx.available = 300

	fx.cycle(0)
	assert.Equal(t, []string{"burst"}, fx.evictions)
	assert.Equal(t, OutcomeWaiting, fx.cycle(10*time.Second).outcome, "burst is still terminating")
	assert.Equal(t, []string{"burst"}, fx.evictions)

	require.NoError(t, fx.indexer.Delete(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "burst"}}))
	fx.cycle(10 * time.Second)
	assert.Equal(t, []string{"burst", "best"}, fx.evictions)
}

func TestStuckTerminatingPodHoldsBackForItsGracePeriodAndCleanup(t *testing.T) {
	fx := newFixture(t, thresholds.Flags{Hard: []string{"memory.available<500Mi"}}, false, nodePods...)
	fx.keep = true
	fx.available = 300

	fx.cycle(0)
	assert.Equal(t, []string{"burst"}, fx.evictions)
	assert.Equal(t, OutcomeWaiting, fx.cycle(60*time.Second).outcome, "30 s of grace and 30 s of cleanup")
	fx.cycle(time.Second)
	assert.Equal(t, []string{"burst", "best"}, fx.evictions, "burst is stuck terminating: the next pod goes")
}

func TestNothingHappensBelowThresholdOrInsideGrace(t *testing.T) {
	for _, tc := range []struct {
		name      string
		available int64
		after     time.Duration
	}{
		{"below the threshold", 501, time.Hour},
		{"inside the grace period", 100, 29 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, softMemory, false, nodePods...)
			fx.available = tc.available
			fx.cycle(0)
			assert.Equal(t, OutcomeNone, fx.cycle(tc.after).outcome)
			assert.Empty(t, fx.evictions)
			assert.Empty(t, fx.events())
			assert.Empty(t, fx.client.Actions())
		})
	}
}

func TestUnusableSummarySkipsTheCycle(t *testing.T) {
	for _, tc := range []struct {
		name    string
		summary func() ([]byte, error)
		want    string
	}{
		{"missing", func() ([]byte, error) { return nil, fmt.Errorf("the server could not find the requested resource") }, "could not find"},
		{"malformed", func() ([]byte, error) { return []byte(`{"node":{"memory":{"availableBytes":"lots"}}}`), nil }, "statsummary: node.memory.availableBytes"},
		{"truncated", func() ([]byte, error) { return []byte(`{"node":{"memory":`), nil }, "statsummary:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, thresholds.Flags{Hard: []string{"memory.available<500Mi"}}, false, nodePods...)
			fx.summary = tc.summary
			assert.Equal(t, OutcomeSkipped, fx.cycle(0).outcome)
			assert.Empty(t, fx.client.Actions(), "nothing evicted")
			events := fx.events()
			require.Len(t, events, 1)
			assert.True(t, strings.HasPrefix(events[0], "Warning SummaryUnavailable Eviction cycle skipped: "), events[0])
			assert.Contains(t, events[0], tc.want)
			assert.Equal(t, 1.0, fx.cycles(OutcomeSkipped))

			// The next good summary acts at once.
			fx.summary, fx.available = nil, 300
			fx.cycle(10 * time.Second)
			assert.Equal(t, []string{"burst"}, fx.evictions)
		})
	}
}

func TestDryRunEvictsNothing(t *testing.T) {
	fx := newFixture(t, thresholds.Flags{Hard: []string{"memory.available<500Mi"}}, true, nodePods...)
	fx.available = 300
	r := fx.cycle(0)
	assert.Equal(t, OutcomeEvicted, r.outcome)
	assert.Equal(t, "burst", r.evicted.Name)
	assert.Empty(t, fx.client.Actions())
	events := fx.events()
	require.Len(t, events, 1)
	assert.True(t, strings.HasPrefix(events[0], "Warning EvictionDryRun Dry run, not evicted: The node was low on resource: memory."), events[0])
}

func TestNewRejectsIncompleteConfig(t *testing.T) {
	_, err := New(Config{})
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "pressureevictor: no Client")
}
